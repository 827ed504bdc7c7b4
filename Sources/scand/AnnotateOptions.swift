import ArgumentParser
import Foundation
import ScanCapture
import ScanCore
import ScanKit
import ScanOutput

/// `scand scan --annotate DIR`: each input written again with its detections drawn, as `zbarimg -d` shows
/// them (issue 17).
struct AnnotateOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "Write each input into DIR as JPEG with code outlines (through their corners) and face boxes (turned by their roll) drawn: NAME.jpg for an image, NAME-FRAME.jpg for the frames of a video or Y4M. Each JSON line names its file (\"annotated\"). An existing file is kept (an error naming it; the scan's lines are still printed, exit 1) unless --overwrite.",
            valueName: "dir"))
    var annotate: String?

    @Flag(name: .long, help: "With --annotate: replace annotated images left by an earlier run.")
    var overwrite = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Which frames of a video or Y4M --annotate writes: 'objects' (frames with an object, the default) or 'all'.",
            valueName: "frames"))
    var annotateFrames: AnnotateFrames = .objects

    enum AnnotateFrames: String, ExpressibleByArgument, CaseIterable { case objects, all }
}

/// Writes annotated frames for `--annotate`. One per `scand scan` run; used from the scanning thread.
final class AnnotationWriter {
    let directory: URL
    /// The directory as given, for the paths the JSON lines name.
    let directoryName: String
    let frames: AnnotateOptions.AnnotateFrames
    let overwrite: Bool
    private var names: [String: String] = [:]  // source → base name
    private var used: Set<String> = []
    private(set) var written = 0

    init(directory: String, frames: AnnotateOptions.AnnotateFrames, overwrite: Bool = false) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw ScanError.output(
                    "--annotate \(directory): cannot create the directory: \(error.localizedDescription)")
            }
        } else if !isDirectory.boolValue {
            throw ScanError.output("--annotate \(directory): not a directory")
        }
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        directoryName = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        self.frames = frames
        self.overwrite = overwrite
    }

    /// Writes `frame` with `event`'s objects drawn, when the options ask for it, and returns the file's path
    /// (the directory as given, then the name); nil when the frame is not written.
    /// - Throws: a ``FrameObserverError`` naming the file that could not be written (an existing one without
    ///   ``overwrite``).
    func write(_ frame: Frame, _ event: MetadataEvent, _ source: SourceInfo) throws(FrameObserverError) -> String? {
        if source.isStream && frames == .objects && event.objects.isEmpty { return nil }
        let base = baseName(for: source.name)
        let name = source.isStream ? String(format: "%@-%06d.jpg", base, frame.index) : "\(base).jpg"
        let url = directory.appendingPathComponent(name)
        let path = directoryName + "/" + name
        do {
            let jpeg = try JPEGEncoder.encode(Annotator.annotate(frame.luma, objects: event.objects), quality: 90)
            if !overwrite && FileManager.default.fileExists(atPath: url.path) {
                throw FrameObserverError(
                    file: path,
                    message:
                        "--annotate: \(path): file exists (--overwrite replaces it); the scan's results are still printed"
                )
            }
            try Data(jpeg).write(to: url, options: overwrite ? [.atomic] : [.withoutOverwriting])
        } catch let error as FrameObserverError {
            throw error
        } catch {
            throw FrameObserverError(
                file: path, message: "--annotate: cannot write \(path): \(error.localizedDescription)")
        }
        written += 1
        return path
    }

    /// The input's file name without its extension (`-` → `stdin`); a second input with the same name gets
    /// `-2`, `-3`, ….
    private func baseName(for source: String) -> String {
        if let known = names[source] { return known }
        var stem = source == "-" ? "stdin" : (URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent)
        if stem.isEmpty || stem == "." || stem == ".." { stem = "input" }
        var candidate = stem
        var n = 2
        while used.contains(candidate) {
            candidate = "\(stem)-\(n)"
            n += 1
        }
        used.insert(candidate)
        names[source] = candidate
        return candidate
    }
}
