import ArgumentParser
import ScanKit
import ScanRun
#if canImport(Glibc)
import Glibc
#endif

// SIGPIPE would kill us when a reader goes away; we see EPIPE instead and stop cleanly.
signal(SIGPIPE, SIG_IGN)
// Under an address-space limit, OpenBLAS's worker threads (started before main) spin for ever: run again without them.
StartupEnvironment.limitOpenBLASThreadsUnderAddressSpaceLimit()
// Before anything opens a descriptor: a limit too low to start is a clear error (status 2), and libdispatch's
// event loop is opened now, while descriptors are free, instead of trapping in the middle of a run.
if let problem = StartupDescriptors.prepare() {
    writeStderr("scand: \(problem)\n")
    exit(ExitStatus.failure)
}
/// Runs the root command through AsyncParsableCommand's `main()` (`run` is async: it hosts a ServiceGroup);
/// a plain `Scand.main()` here would pick ParsableCommand's synchronous one.
func runAsync<Command: AsyncParsableCommand>(_: Command.Type) async { await Command.main() }
await runAsync(Scand.self)
