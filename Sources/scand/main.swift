import ArgumentParser
import ScanKit
#if canImport(Glibc)
import Glibc
#endif

// SIGPIPE would kill us when a reader goes away; we see EPIPE instead and stop cleanly.
signal(SIGPIPE, SIG_IGN)
/// Runs the root command through AsyncParsableCommand's `main()` (`run` is async: it hosts a ServiceGroup);
/// a plain `Scand.main()` here would pick ParsableCommand's synchronous one.
func runAsync<Command: AsyncParsableCommand>(_: Command.Type) async { await Command.main() }
await runAsync(Scand.self)
