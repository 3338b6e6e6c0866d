/*
 * bcryptprimitives.dll for Wine 8, which lacks it: Go's Windows binaries (Go 1.24 and later) get
 * their random bytes from ProcessPrng in this DLL and do not start without it. ProcessPrng here
 * forwards to advapi32's SystemFunction036 (RtlGenRandom), which Wine has. .ci/wine builds it and
 * copies it into its Wine prefix; it is never shipped.
 *
 * ProcessPrng: https://learn.microsoft.com/windows/win32/seccng/processprng
 * RtlGenRandom: https://learn.microsoft.com/windows/win32/api/ntsecapi/nf-ntsecapi-rtlgenrandom
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size) {
	/* RtlGenRandom takes a ULONG length; ProcessPrng a SIZE_T one. */
	while (size > 0) {
		ULONG n = size > 0x7fffffff ? 0x7fffffff : (ULONG)size;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
