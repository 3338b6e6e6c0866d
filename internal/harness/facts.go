package harness

// Unattended says whether a harness runs a call of tool without asking the user in permission
// mode mode: a fact a policy's conditions read (when: {unattended: true}). It is nil where the
// harness does not say: it sends no mode (Copilot CLI, Gemini CLI, Cursor), or a mode whose
// meaning for this tool is not known. The user's own pre-approvals (Claude Code's
// permissions.allow) are a confirmation given in advance and are not read.
func Unattended(harness, mode, tool string) *bool {
	if f := unattended[harness]; f != nil && mode != "" {
		return f(mode, tool)
	}
	return nil
}

// Subagent says whether a call whose payload carries the agent id agentID ("" for none) comes
// from a subagent, where the harness says: Claude Code sends agent_id only inside a subagent;
// Copilot CLI sends agentId for a subagent, but its older versions sent none, so an absent one
// says nothing there. Nil where it is not known.
func Subagent(harness, agentID string) *bool {
	switch {
	case harness == "claude":
		return known(agentID != "")
	case harness == "copilot" && agentID != "":
		return known(true)
	}
	return nil
}

// unattended holds, for each harness that sends its permission mode, what the mode means.
var unattended = map[string]func(mode, tool string) *bool{
	"claude": claudeUnattended,
	"codex":  codexUnattended,
}

func known(b bool) *bool { return &b }
