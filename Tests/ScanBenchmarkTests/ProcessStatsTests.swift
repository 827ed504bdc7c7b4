import Testing
import ScanKit
@testable import ScanBenchmark

@Suite struct ProcessStatsTests {
    @Test func percentilesAreNearestRank() {
        var s = SampleSeries()
        for v in [5.0, 1, 4, 2, 3, 10, 9, 8, 7, 6] { s.add(v) }
        #expect(s.median == 5)
        #expect(s.percentile(99) == 10)
        #expect(s.percentile(10) == 1)
        #expect(s.mean == 5.5)
    }

    @Test func residentMemoryGrowsWhenMemoryIsTouched() {
        let before = ProcessStats.residentBytes()
        var block = [UInt8](repeating: 1, count: 64 << 20)
        block[block.count - 1] = 2
        let after = ProcessStats.residentBytes()
        #expect(after - before > 48 << 20)
        #expect(ProcessStats.peakResidentBytes() >= after)
        #expect(block[0] == 1)
        #expect(ProcessStats.cpuSeconds() > 0)
    }
}
