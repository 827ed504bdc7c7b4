import ArgumentParser
import ScanKit
import ScanDetection
import ScanDaemon

/// Exit codes (documented in the README).
enum ExitStatus {
    static let success: Int32 = 0
    /// At least one input could not be read or decoded; the others were scanned.
    static let inputFailed: Int32 = 1
    /// A model, device or output failed so nothing could be scanned.
    static let failure: Int32 = 2
    /// Every input was scanned but some held no object (`scand scan`, as zbarimg), or `run --oneshot` ended
    /// without one; failures (1, 2) take precedence.
    static let nothingFound: Int32 = 4
    /// ArgumentParser's usage error code (EX_USAGE).
    static let usage: Int32 = 64
}

struct Scand: AsyncParsableCommand {
    static let version = "0.1.0"
    static let configuration = CommandConfiguration(
        commandName: "scand",
        abstract: "Machine-readable code and face scanner: images, video, Y4M and V4L2 cameras to JSON lines.",
        discussion: "stdout carries only JSON lines (one event per line); logs go to stderr.",
        version: "\(version) (\(LibraryVersions.summary))",
        subcommands: [ScanCommand.self, TypesCommand.self, DevicesCommand.self, RunCommand.self, WatchCommand.self, BenchCommand.self],
        defaultSubcommand: nil)
}
