import ArgumentParser
import ScanCore
import ScanKit
import ScanRun

#if canImport(Glibc)
    import Glibc
#endif

let isDaemon = CommandLine.arguments.dropFirst().first == "run"
// Executes itself again, once, if the environment lacks what it needs: under an address-space limit, no
// OpenBLAS threads (they spin for ever) and one malloc arena; for `scand run`, crash reports on stderr, not
// among the events on stdout.
StartupEnvironment.prepare(daemon: isDaemon)
// SIGPIPE would kill us when a reader goes away; we see EPIPE instead and stop cleanly.
signal(SIGPIPE, SIG_IGN)
// `scand run`: SIGHUP (reload) must never end the daemon. Until `run` traps it (HangupTrap, before it reads its
// config file) it is ignored: a reload sent that early asks for a config that has not been read yet.
if isDaemon { signal(SIGHUP, SIG_IGN) }
// An address-space limit too low to start a thread is a clear error (status 2), not a hang or a crash.
if let problem = StartupEnvironment.addressSpaceProblem() {
    writeStderr("scand: \(problem)\n")
    exit(ExitStatus.failure)
}
// Before anything opens a descriptor: a limit too low to start is a clear error (status 2), and libdispatch's
// event loop is opened now, while descriptors are free, instead of trapping in the middle of a run.
if let problem = StartupDescriptors.prepare() {
    writeStderr("scand: \(problem)\n")
    exit(ExitStatus.failure)
}
// Parses and runs the command as AsyncParsableCommand's `main()` does (`run` is async: it hosts a
// ServiceGroup), with help only when asked for and unknown options as usage errors (CommandLineCheck).
await CommandLineCheck.main(Array(CommandLine.arguments.dropFirst()))
