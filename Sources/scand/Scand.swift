import ArgumentParser
import ScanDaemon
import ScanDetection
import ScanKit

struct Scand: AsyncParsableCommand {
    static let version = "0.1.0"
    static let configuration = CommandConfiguration(
        commandName: "scand",
        abstract: "Machine-readable code and face scanner: images, video, Y4M and V4L2 cameras to JSON lines.",
        discussion: "stdout carries only JSON lines (one event per line); logs go to stderr.",
        version: "\(version) (\(LibraryVersions.summary))",
        subcommands: [
            ScanCommand.self, TypesCommand.self, DevicesCommand.self, RunCommand.self, WatchCommand.self,
            BenchCommand.self,
        ],
        defaultSubcommand: nil)
}
