import ArgumentParser
import ScanKit
#if canImport(Glibc)
import Glibc
#endif

// SIGPIPE would kill us when a reader goes away; we see EPIPE instead and stop cleanly.
signal(SIGPIPE, SIG_IGN)
Scand.main()
