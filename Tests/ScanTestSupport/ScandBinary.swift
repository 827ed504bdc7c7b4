public import Foundation

/// Runs the built `scand` executable as a user would.
public enum ScandBinary {
    /// The binary next to the test bundle (.build/<config>/scand).
    public static var url: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("scand")
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDir), !isDir.boolValue { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        let fallback = Fixtures.repositoryRoot.appendingPathComponent(".build/debug/scand")
        precondition(FileManager.default.fileExists(atPath: fallback.path), "scand binary not found: run swift build first")
        return fallback
    }

    public struct Result: Sendable {
        public var status: Int32
        public var stdout: [UInt8]
        public var stderr: String
        public var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        /// stdout split into lines (without the trailing empty one).
        public var lines: [String] { stdoutText.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
        /// Every stdout line parsed as a JSON object; fails the caller's expectations if a line is not JSON.
        public func jsonLines() throws -> [[String: Any]] {
            try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        }
    }

    /// Runs scand with `arguments`, feeding `stdin` if given, in `directory` (default: the fixtures folder).
    public static func run(_ arguments: [String], stdin: [UInt8]? = nil, directory: URL? = nil,
                           environment: [String: String]? = nil) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? Fixtures.directory
        if let environment { process.environment = environment }
        let out = Pipe(), err = Pipe(), input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        // Read both pipes concurrently so neither fills up.
        let errData = LockedData()
        let errThread = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        errThread.start()
        if let stdin {
            let writer = Thread {
                input.fileHandleForWriting.write(Data(stdin))
                try? input.fileHandleForWriting.close()
            }
            writer.start()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errData.done { usleep(1000) }
        return Result(status: process.terminationStatus, stdout: [UInt8](outData),
                      stderr: String(decoding: errData.value, as: UTF8.self))
    }
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var finished = false
    func set(_ d: Data) { lock.lock(); data = d; finished = true; lock.unlock() }
    var done: Bool { lock.lock(); defer { lock.unlock() }; return finished }
    var value: Data { lock.lock(); defer { lock.unlock() }; return data }
}
