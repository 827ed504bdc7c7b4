import ArgumentParser
import FoundationEssentials
import ScanBenchmark
import ScanCore
import ScanKit

extension BenchCommand {
    /// `--stills DIR`: scand's still reader and zxing-cpp's defaults on the same photos, in the same run
    /// (``StillsBench``); prints per category the reads, and for each reader the misreads, the code-free photos
    /// reported on, CPU and wall time per photo (medians of --runs), the longest photo and the peak RSS, then
    /// scand's CPU and wall as ratios to zxing-cpp's. --json writes the results.
    func measureStills(_ directory: String) throws {
        var configuration = OutputConfiguration()
        try detection.apply(to: &configuration)
        do { try configuration.barcode.validate() } catch { throw ValidationError(error.description) }
        let results = try StillsBench.run(
            directory: directory, configuration: configuration.barcode, runs: max(1, runs),
            progress: { writeStderr("stills: \($0)\n") })
        guard results.count == 2 else { return }
        let (s, z) = (results[0], results[1])
        print("\nstills: \(directory), \(s.all.photos) photos, \(s.all.codes) codes (medians of \(max(1, runs)) runs)")
        print("| category | photos | codes | scand read | zxing-cpp read |")
        print("|---|---:|---:|---:|---:|")
        for category in s.byCategory.keys.sorted() {
            let a = s.byCategory[category]!
            let b = z.byCategory[category] ?? StillsBench.Figures()
            print("| \(category) | \(a.photos) | \(a.codes) | \(a.read) | \(b.read) |")
        }
        print("| **all** | \(s.all.photos) | \(s.all.codes) | **\(s.all.read)** | **\(z.all.read)** |")
        print("")
        print(
            "| reader | misreads | code-free photos reported on | failures | CPU s/photo | wall s/photo | longest photo s | peak RSS MB |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|")
        for r in results {
            print(
                "| \(r.reader) | \(r.all.misreads) | \(r.all.reportedOnCodeFree) | \(r.all.failures) | \(fixed(r.cpuPerPhoto, 3)) | \(fixed(r.wallPerPhoto, 3)) | \(fixed(r.longestPhoto, 3)) | \(fixed(Double(r.peakRSS) / 1_048_576, 1)) |"
            )
        }
        print(
            "\nscand ÷ zxing-cpp: CPU per photo \(fixed(s.cpuPerPhoto / max(1e-9, z.cpuPerPhoto), 2))×, wall per photo \(fixed(s.wallPerPhoto / max(1e-9, z.wallPerPhoto), 2))×"
        )
        if let json { try Self.writeJSON(results.map(StillsJSON.init), to: json) }
    }
}

/// One reader's stills figures as `--json` writes them.
struct StillsJSON: Encodable {
    var reader: String
    var photos, codes, read, misreads, reportedOnCodeFree, failures: Int
    var cpuPerPhoto, wallPerPhoto, longestPhoto: Double
    var cpuRuns: [Double]
    var peakRSS: Int
    var readByCategory: [String: Int]

    init(_ r: StillsBench.Result) {
        reader = r.reader
        photos = r.all.photos
        codes = r.all.codes
        read = r.all.read
        misreads = r.all.misreads
        reportedOnCodeFree = r.all.reportedOnCodeFree
        failures = r.all.failures
        cpuPerPhoto = r.cpuPerPhoto
        wallPerPhoto = r.wallPerPhoto
        longestPhoto = r.longestPhoto
        cpuRuns = r.cpuRuns
        peakRSS = r.peakRSS
        readByCategory = r.byCategory.mapValues(\.read)
    }
}
