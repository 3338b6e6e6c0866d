package cli

import "os"

func getwd() (string, error) { return os.Getwd() }
