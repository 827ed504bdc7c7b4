import Testing
import ScanCore

@Suite("/proc/self/status fields")
struct ProcessStatusTests {
    @Test("kB fields come back in bytes, and grow when memory is touched; a missing field is nil")
    func fields() {
        let size = ProcessStatus.bytes("VmSize"), rss = ProcessStatus.bytes("VmRSS")
        #expect((size ?? 0) > 0 && (rss ?? 0) > 0)
        #expect((size ?? 0) >= (rss ?? .max), "mapped \(String(describing: size)) < resident \(String(describing: rss))")
        #expect((size ?? 0) % 1024 == 0)
        // 64 MiB written page by page: resident memory grows by about that much.
        let before = ProcessStatus.bytes("VmRSS") ?? 0
        var block = [UInt8](repeating: 1, count: 64 << 20)
        block[block.count - 1] = 2
        let after = ProcessStatus.bytes("VmRSS") ?? 0
        #expect(after - before >= 48 << 20, "resident \(before) → \(after)")
        #expect(block.last == 2)
        #expect(ProcessStatus.bytes("NoSuchField") == nil)
        #expect(ProcessStatus.bytes("Vm") == nil) // a prefix of a name is not a field
    }
}
