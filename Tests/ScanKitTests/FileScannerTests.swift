import Foundation
import Testing
import Logging
import ScanCore
import ScanOutput
import ScanTestSupport
@testable import ScanKit

@Suite struct FileScannerTests {
    @Test func outputRejectsUnavailableTypesAndBadROI() {
        var c = OutputConfiguration()
        c.metadataObjectTypes = [.aztec]
        c.barcode.engine = .zbar
        #expect(throws: ScanError.self) { try MetadataOutput(configuration: c) }
        c.barcode.engine = .both
        #expect(throws: Never.self) { try MetadataOutput(configuration: c) }
        c = OutputConfiguration(rectOfInterest: NormalizedRect(x: 0.8, y: 0, width: 0.5, height: 1))
        #expect(throws: ScanError.self) { try MetadataOutput(configuration: c) }
    }

    @Test func frameLimitStopsEachSource() throws {
        let output = try MetadataOutput(configuration: OutputConfiguration())
        let scanner = FileScanner(output: output, logger: Logger(label: "test"), frameLimit: 5)
        let sink = CollectingSink()
        var summary = ScanSummary()
        let source = try ScanCapture_open(Fixtures.path("clip-mono.y4m"))
        try scanner.scan(source: source, sink: sink, summary: &summary)
        #expect(summary.frames == 5)
        #expect(sink.events.count == 5)
        #expect(sink.events.allSatisfy { $0.name == "metadata" && $0.objectTypes == [.qr] })
    }

    /// `--jobs`: several inputs at once give the very lines of one job, in input order, and the same summary,
    /// failed and code-free inputs included; with a buffer of 1 byte every worker whose input is not at the
    /// head waits after each line (the back-pressure path).
    @Test(arguments: [(2, ParallelScan.defaultBufferedBytesPerInput), (3, ParallelScan.defaultBufferedBytesPerInput), (2, 1)])
    func jobsGiveTheLinesOfOneJobInOrder(jobs: Int, buffer: Int) throws {
        let names = ["clip-mono.y4m", "multi.png", "exact.png", "truncated.png", "multi.gif", "nope.png", "clip-422.y4m",
                     "empty-scene.png", "qr-utf8.png", "multi.jpg"]
        let inputs = names.map { InputPath($0 == "nope.png" ? Fixtures.directory.appendingPathComponent($0).path : Fixtures.path($0)) }
        func run(_ jobs: Int) throws -> ([UInt8], ScanSummary) {
            let tmp = try TemporaryDirectory()
            let path = tmp.url.appendingPathComponent("out.jsonl").path
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            #expect(fd >= 0)
            defer { close(fd) }
            let scanner = FileScanner(output: try MetadataOutput(configuration: OutputConfiguration()), logger: Logger(label: "test"))
            let summary = try scanner.scan(inputs: inputs, sink: FileDescriptorSink(fd: fd), jobs: jobs, bufferedBytesPerInput: buffer) {
                try MetadataOutput(configuration: OutputConfiguration())
            }
            return ([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), summary)
        }
        let (one, s1) = try run(1)
        let (many, sN) = try run(jobs)
        #expect(one.count > 10_000 && many == one)
        #expect(s1.inputs == 10 && sN.inputs == s1.inputs && sN.frames == s1.frames && sN.objects == s1.objects)
        #expect(sN.failedInputs == s1.failedInputs && s1.failedInputs.map { ($0 as NSString).lastPathComponent } == ["truncated.png", "nope.png"])
        #expect(sN.inputsWithoutObjects == s1.inputsWithoutObjects && s1.inputsWithoutObjects.count == 1)
    }

    @Test func modelLocatorHonoursExplicitDirectoryAndNamesMissingFiles() throws {
        let dir = Fixtures.repositoryRoot.appendingPathComponent("Models").path
        #expect(try ModelLocator.directory(ModelConfiguration(directory: dir)) == dir)
        // A path that cannot exist: "/nonexistent" is nobody's home on Debian, and tools run as nobody create it.
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("scand-no-models-\(UUID().uuidString)").path
        #expect(throws: ScanError.self) { try ModelLocator.directory(ModelConfiguration(directory: missing)) }
        do {
            _ = try ModelLocator.file("nope.xml", in: ModelConfiguration(directory: dir))
            Issue.record("missing model accepted")
        } catch { #expect("\(error)".contains("nope.xml")) }
        #expect(try ModelLocator.file("haarcascade_frontalface_default.xml", in: ModelConfiguration(directory: dir)).hasSuffix(".xml"))
    }
}

/// Every failed input's error line names the input, also when the error comes from a detector on one of its
/// frames (zxing-cpp's `std::bad_alloc` under an address-space limit came out as `detector: zxing:
/// std::bad_alloc`, with no file name; the binary's behaviour is in `scandTests/DescriptorLimitTests`).
@Suite struct FailureMessageTests {
    @Test func detectorErrorsAreNamedAndInputErrorsAreNotNamedTwice() {
        #expect(FileScanner.failureMessage(ScanError.detector("zxing: std::bad_alloc"), input: "shelf.jpg")
                == "shelf.jpg: detector: zxing: std::bad_alloc")
        #expect(FileScanner.failureMessage(ScanError.unreadableInput(input: "a.png", reason: "Too many open files"), input: "a.png")
                == "a.png: cannot read: Too many open files")
        #expect(FileScanner.failureMessage(ScanError.undecodableInput(input: "cut.y4m", reason: "truncated"), input: "cut.y4m")
                == "cut.y4m: cannot decode: truncated")
        #expect(FileScanner.failureMessage(ScanError.device(path: "/dev/video9", reason: "no such device"), input: "/dev/video9")
                == "/dev/video9: no such device")
        struct Other: Error, CustomStringConvertible { var description: String { "something else" } }
        #expect(FileScanner.failureMessage(Other(), input: "-") == "-: something else")
    }
}
