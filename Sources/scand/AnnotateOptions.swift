import ArgumentParser
import Foundation
import ScanCore
import ScanCapture
import ScanHTTP

/// `scand scan --annotate DIR`: each input written again with its detections drawn, as `zbarimg -d` shows
/// them (issue 17).
struct AnnotateOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Write each input into DIR as JPEG with code outlines (through their corners) and face boxes (turned by their roll) drawn: NAME.jpg for an image, NAME-FRAME.jpg for the frames of a video or Y4M. Existing files are never overwritten.", valueName: "dir"))
    var annotate: String?

    @Option(name: .long, help: ArgumentHelp("Which frames of a video or Y4M --annotate writes: 'objects' (frames with an object, the default) or 'all'.", valueName: "frames"))
    var annotateFrames: AnnotateFrames = .objects

    enum AnnotateFrames: String, ExpressibleByArgument, CaseIterable { case objects, all }
}

/// Writes annotated frames for `--annotate`. One per `scand scan` run; used from the scanning thread.
final class AnnotationWriter {
    let directory: URL
    let frames: AnnotateOptions.AnnotateFrames
    private var names: [String: String] = [:]  // source → base name
    private var used: Set<String> = []
    private(set) var written = 0

    init(directory: String, frames: AnnotateOptions.AnnotateFrames) throws {
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            do { try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true) } catch {
                throw ScanError.output("--annotate \(directory): cannot create the directory: \(error.localizedDescription)")
            }
        } else if !isDirectory.boolValue {
            throw ScanError.output("--annotate \(directory): not a directory")
        }
        self.directory = URL(fileURLWithPath: directory, isDirectory: true)
        self.frames = frames
    }

    /// Writes `frame` with `event`'s objects drawn, when the options ask for it.
    /// - Throws: ``ScanError/output(_:)`` naming the file that could not be written.
    func write(_ frame: Frame, _ event: MetadataEvent, _ source: SourceInfo) throws {
        if source.isStream && frames == .objects && event.objects.isEmpty { return }
        let base = baseName(for: source.name)
        let name = source.isStream ? String(format: "%@-%06d.jpg", base, frame.index) : "\(base).jpg"
        let url = directory.appendingPathComponent(name)
        let jpeg = try JPEGEncoder.encode(Annotator.annotate(frame.luma, objects: event.objects), quality: 90)
        do {
            try Data(jpeg).write(to: url, options: [.withoutOverwriting])
        } catch {
            throw ScanError.output("--annotate: cannot write \(url.path): \(error.localizedDescription)")
        }
        written += 1
    }

    /// The input's file name without its extension (`-` → `stdin`); a second input with the same name gets
    /// `-2`, `-3`, ….
    private func baseName(for source: String) -> String {
        if let known = names[source] { return known }
        var stem = source == "-" ? "stdin" : (URL(fileURLWithPath: source).deletingPathExtension().lastPathComponent)
        if stem.isEmpty || stem == "." || stem == ".." { stem = "input" }
        var candidate = stem, n = 2
        while used.contains(candidate) { candidate = "\(stem)-\(n)"; n += 1 }
        used.insert(candidate)
        names[source] = candidate
        return candidate
    }
}
