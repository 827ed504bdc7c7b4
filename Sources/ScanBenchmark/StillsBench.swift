import FoundationEssentials
import ScanCapture
public import ScanCore
import ScanDetection

#if canImport(Glibc)
    import Glibc
#endif

/// `scand bench --stills DIR`: scand's still reader against zxing-cpp with its own defaults
/// (``ZXingDefaults``), in the same process on the same files, runs alternated: CPU and wall time per photo
/// (each photo decoded, then read; the same decoder for both), reads, misreads and what each reports on
/// code-free photos. DIR is a set in bench/reader/make_set.py's layout (`truth.json` and the images).
public enum StillsBench {
    /// A set's ground truth: each image's file (relative to the set), category and codes.
    struct Truth: Decodable {
        struct Code: Decodable {
            var symbology: String
            var value: String
        }
        struct Image: Decodable {
            var file: String
            var category: String
            var codes: [Code]
        }
        var images: [Image]
    }

    /// One reader's figures over a set (or one category of it).
    public struct Figures: Sendable {
        public var photos = 0
        public var codes = 0
        /// Codes read with the right value.
        public var read = 0
        /// Values reported that are not in the photo (each distinct value once per photo).
        public var misreads = 0
        /// Code-free photos on which anything was reported.
        public var reportedOnCodeFree = 0
        /// Photos the reader failed on (an engine error), each also named on stderr.
        public var failures = 0

        public init() {}
    }

    /// One reader's result: figures per category and in all, and costs (medians over the runs).
    public struct Result: Sendable {
        public var reader: String
        public var byCategory: [String: Figures]
        public var all: Figures
        /// CPU seconds (user + system, the whole process) per photo, decode included: the median of the runs.
        public var cpuPerPhoto: Double
        /// Each run's CPU seconds per photo.
        public var cpuRuns: [Double]
        /// Wall seconds per photo (median over the runs of each run's mean).
        public var wallPerPhoto: Double
        /// The longest wall time of one photo (decode and read), seconds, over every run.
        public var longestPhoto: Double
        /// Peak resident memory while this reader ran (VmHWM after a reset), bytes; 0 when the kernel refused
        /// the reset.
        public var peakRSS: Int
    }

    /// The readers measured: scand's still reader with `configuration`, and zxing-cpp's defaults.
    public enum Reader: String, Sendable, CaseIterable {
        case scand
        case zxing = "zxing-cpp"
    }

    /// Runs both readers over the set in `directory`, `runs` times each, alternated (scand first on even runs,
    /// zxing-cpp first on odd ones).
    /// - Throws: when the set's `truth.json` cannot be read or an image cannot be read or decoded.
    public static func run(
        directory: String, configuration: BarcodeConfiguration, runs: Int, progress: (String) -> Void = { _ in }
    ) throws -> [Result] {
        let truth = try decodeJSONFile(Truth.self, at: directory + "/truth.json", what: "stills truth")
        // (Each photo is read from the file when it is measured, as `scand scan` does: none is held between.)
        let paths = truth.images.map { directory + "/" + $0.file }
        let detector = BarcodeDetector(configuration: configuration)
        var cpu: [Reader: [Double]] = [:]
        var wall: [Reader: [Double]] = [:]
        var longest: [Reader: Double] = [:]
        var peak: [Reader: Int] = [:]
        var values: [Reader: [[String]]] = [:]
        var failed: [Reader: Set<Int>] = [:]
        for run in 0..<max(1, runs) {
            let order = run % 2 == 0 ? Reader.allCases : Reader.allCases.reversed()
            for reader in order {
                let resetOK = ProcessStats.resetPeak()
                var reads: [[String]] = []
                let cpu0 = ProcessStats.cpuSeconds()
                let wall0 = MonotonicInstant.now
                for (index, path) in paths.enumerated() {
                    let start = MonotonicInstant.now
                    let name = truth.images[index].file
                    let plane = try ImageDecoder.decode(try readWholeFile(path), name: name)
                    do {
                        switch reader {
                        case .scand:
                            let frame = Frame(luma: plane, index: 0, time: 0)
                            reads.append(try detector.detect(in: frame).compactMap(\.stringValue))
                        case .zxing:
                            reads.append(try ZXingDefaults.read(plane).map(\.text))
                        }
                    } catch {
                        if run == 0 { progress("\(reader.rawValue) failed on \(name): \(error)") }
                        failed[reader, default: []].insert(index)
                        reads.append([])
                    }
                    longest[reader] = max(longest[reader] ?? 0, start.duration(to: .now).inSeconds)
                }
                let n = Double(max(1, paths.count))
                cpu[reader, default: []].append((ProcessStats.cpuSeconds() - cpu0) / n)
                wall[reader, default: []].append(wall0.duration(to: .now).inSeconds / n)
                peak[reader] = max(peak[reader] ?? 0, resetOK ? ProcessStats.peakResidentBytes() : 0)
                if run == 0 { values[reader] = reads }
                progress("\(reader.rawValue) run \(run + 1): \(String(cpu[reader]!.last!)) CPU-s a photo")
            }
        }
        return Reader.allCases.map { reader in
            var byCategory: [String: Figures] = [:]
            var all = Figures()
            for (index, image) in truth.images.enumerated() {
                let f = score(values[reader]?[index] ?? [], image, failed: failed[reader]?.contains(index) ?? false)
                byCategory[image.category, default: Figures()].add(f)
                all.add(f)
            }
            var cpuSeries = SampleSeries()
            for v in cpu[reader, default: []] { cpuSeries.add(v) }
            var wallSeries = SampleSeries()
            for v in wall[reader, default: []] { wallSeries.add(v) }
            return Result(
                reader: reader.rawValue, byCategory: byCategory, all: all, cpuPerPhoto: cpuSeries.median,
                cpuRuns: cpu[reader] ?? [], wallPerPhoto: wallSeries.median, longestPhoto: longest[reader] ?? 0,
                peakRSS: peak[reader] ?? 0)
        }
    }

    /// One photo's figures from the values a reader reported on it.
    static func score(_ reported: [String], _ image: Truth.Image, failed: Bool) -> Figures {
        var f = Figures()
        f.photos = 1
        f.codes = image.codes.count
        f.failures = failed ? 1 : 0
        f.read = image.codes.filter { code in reported.contains { matches($0, code) } }.count
        f.misreads = Set(reported).filter { value in !image.codes.contains { matches(value, $0) } }.count
        if image.codes.isEmpty && !reported.isEmpty { f.reportedOnCodeFree = 1 }
        return f
    }

    /// Whether `value` is `code`'s value, as bench/reader/score.py counts it: GS1 parentheses and GS ignored,
    /// Codabar's start and stop characters ignored, UPC-A with or without its leading 0, UPC-E as its own 8
    /// digits or its UPC-A or EAN-13 form.
    static func matches(_ value: String, _ code: Truth.Code) -> Bool {
        func norm(_ s: String) -> String {
            String(s.filter { $0 != "(" && $0 != ")" && $0 != "\u{1D}" }).trimmingCharacters(in: .whitespaces)
        }
        let p = norm(value)
        let t = norm(code.value)
        if p == t { return true }
        switch code.symbology {
        case "codabar":
            let ends = Set("ABCDTN*E")
            func strip(_ s: String) -> String {
                var c = Array(s.uppercased())
                while let f = c.first, ends.contains(f) { c.removeFirst() }
                while let l = c.last, ends.contains(l) { c.removeLast() }
                return String(c)
            }
            return strip(p) == strip(t)
        case "upca": return p == String(t.dropFirst())
        case "upce":
            guard t.count == 8, let upca = upceAsUPCA(t) else { return false }
            return p == upca || p == "0" + upca
        default: return false
        }
    }

    /// The 12-digit UPC-A form of the 8-digit UPC-E `t` (number system, six digits, check digit).
    static func upceAsUPCA(_ t: String) -> String? {
        let d = Array(t)
        guard d.count == 8, d.allSatisfy(\.isASCII), d.allSatisfy(\.isNumber) else { return nil }
        let m = d[1...6].map(String.init)
        let body: String
        switch d[6] {
        case "0", "1", "2": body = m[0] + m[1] + m[5] + "0000" + m[2] + m[3] + m[4]
        case "3": body = m[0] + m[1] + m[2] + "00000" + m[3] + m[4]
        case "4": body = m[0] + m[1] + m[2] + m[3] + "00000" + m[4]
        default: body = m[0] + m[1] + m[2] + m[3] + m[4] + "0000" + m[5]
        }
        return String(d[0]) + body + String(d[7])
    }
}

extension StillsBench.Figures {
    mutating func add(_ o: Self) {
        photos += o.photos
        codes += o.codes
        read += o.read
        misreads += o.misreads
        reportedOnCodeFree += o.reportedOnCodeFree
        failures += o.failures
    }
}
