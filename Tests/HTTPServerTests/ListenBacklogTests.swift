import Foundation
import HTTPServer
import Testing

/// The listening socket's accept queue is as long as the kernel allows (or as configured), so
/// a reconnect storm of thousands of phones is queued instead of having its SYNs dropped (a
/// dropped SYN costs the client a 1 s retransmit). Read back from the kernel with `ss`, which
/// reports a listener's backlog in its Send-Q column.
@Suite struct ListenBacklogTests {
    static func kernelSomaxconn() throws -> Int {
        let text = try String(contentsOfFile: "/proc/sys/net/core/somaxconn", encoding: .utf8)
        return try #require(Int(text.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The backlog the kernel holds for the listener on `port` (ss's Send-Q for a LISTEN socket).
    static func listenBacklog(port: Int) throws -> Int? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["ss", "-ltnH", "sport = :\(port)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "ss (iproute2) must be installed: scripts/install-deps")
        // "LISTEN 0 4096 127.0.0.1:43210 0.0.0.0:*": state, Recv-Q, Send-Q (the backlog), ...
        let fields = output.split(whereSeparator: \.isWhitespace)
        return fields.count >= 3 ? Int(fields[2]) : nil
    }

    @Test func defaultBacklogIsTheKernelsSomaxconn() throws {
        let expected = try Self.kernelSomaxconn()
        try withServer { _, port in
            let backlog = try Self.listenBacklog(port: port)
            #expect(backlog == expected)
        }
    }

    /// LISTEN_BACKLOG's path: a configured value reaches listen(2) (below the kernel's cap, so
    /// the kernel keeps it as given).
    @Test func configuredBacklogIsTheOneTheKernelHolds() throws {
        let configured = min(300, try Self.kernelSomaxconn())
        try withServer(testConfiguration { $0.listenBacklog = configured }) { _, port in
            let backlog = try Self.listenBacklog(port: port)
            #expect(backlog == configured)
        }
    }
}
