#if canImport(Glibc)
import Glibc
#endif

/// The fuzz targets by name.
let targets: [String: @Sendable (UnsafeBufferPointer<UInt8>) -> Void] = [
    "y4m": Y4MTarget.run,
    "pnm": PNMTarget.run,
    "gif": GIFTarget.run,
    "jpeg": JPEGTarget.run,
    "subscribe": SubscribeTarget.run,
    "config": ConfigTarget.run,
    "json": JSONTarget.run,
    "gs1": GS1Target.run,
    "url": URLTarget.run,
]

/// The target chosen on the command line; set once in `LLVMFuzzerInitialize`, before any input runs.
nonisolated(unsafe) var selected: (@Sendable (UnsafeBufferPointer<UInt8>) -> Void)?

/// `scand-fuzz <target> [libFuzzer flags] [corpus dirs or input files]`: libFuzzer's `main` calls this
/// before it parses its flags; the target name (argv[1], or `$SCAND_FUZZ_TARGET`) is removed from argv.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(_ argc: UnsafeMutablePointer<CInt>,
                             _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>) -> CInt {
    let count = Int(argc.pointee)
    var name = getenv("SCAND_FUZZ_TARGET").map { String(cString: $0) }
    if count >= 2, let first = argv.pointee[1].map({ String(cString: $0) }), targets[first] != nil {
        name = first
        // Drop argv[1]: shift the rest (and the terminating nil) down by one.
        for i in 1..<count { argv.pointee[i] = argv.pointee[i + 1] }
        argc.pointee -= 1
    }
    guard let name, let target = targets[name] else {
        let usage = "usage: scand-fuzz <target> [libFuzzer flags] [corpus dirs or inputs]\n"
            + "targets: \(targets.keys.sorted().joined(separator: ", ")) (or set SCAND_FUZZ_TARGET)\n"
        _ = usage.withCString { write(2, $0, strlen($0)) }
        exit(2)
    }
    selected = target
    // The Y4M writer thread may hit a closed pipe: that must be an error return, not a signal.
    signal(SIGPIPE, SIG_IGN)
    return 0
}

/// libFuzzer's per-input entry.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selected!(UnsafeBufferPointer(start: data, count: size))
    return 0
}
