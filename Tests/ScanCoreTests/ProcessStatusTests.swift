import Testing
import ScanCore

@Suite("/proc/self/status fields")
struct ProcessStatusTests {
    @Test("kB fields come back in bytes; a missing field is nil (growth: ProcessStatsTests)")
    func fields() {
        let size = ProcessStatus.bytes("VmSize"), rss = ProcessStatus.bytes("VmRSS")
        #expect((size ?? 0) > 0 && (rss ?? 0) > 0)
        #expect((size ?? 0) >= (rss ?? .max), "mapped \(String(describing: size)) < resident \(String(describing: rss))")
        #expect((size ?? 0) % 1024 == 0)
        #expect(ProcessStatus.bytes("NoSuchField") == nil)
        #expect(ProcessStatus.bytes("Vm") == nil) // a prefix of a name is not a field
    }
}
