import Foundation
import Glibc
import Postgres
import Testing

/// No silent cap: an unbounded `/rest/v1` read streams every visible row (chunked), and a
/// client that leaves mid-stream frees the database connection and its transaction.
@Suite struct RestReadStreamTests {
    /// `count` more tasks the owner declared, each with `padding` bytes of description.
    static func addTasks(_ rest: RestWorld, count: Int, padding: Int = 0) throws {
        try rest.world.app.database.pool.execute("""
            INSERT INTO tasks (title, description, declared_by, listing_id)
            SELECT 'Bulk ' || n, repeat('x', \(padding)::int), \(rest.world.id(.owner))::uuid, \(rest.listing)::uuid
            FROM generate_series(1, \(count)::int) AS n
            """)
    }

    @Test func anUnboundedReadStreamsEveryVisibleRow() throws {
        let rest = try RestWorld()
        try Self.addTasks(rest, count: 2_500)
        let response = try rest.get("tasks?select=id,title", headers: ["Prefer": "count=exact"])
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == "chunked")
        #expect(response.header("Content-Length") == nil)
        #expect(response.header("Content-Range") == "0-2504/2505")
        let decoded = try #require(RestWorld.dechunk(response.body))
        #expect(decoded.complete)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(decoded.body)) as? [[String: Any]])
        #expect(rows.count == 2_505)
        #expect(Set(rows.compactMap { $0["id"] as? String }).count == 2_505)
        // More than Supabase's 1,000-row cap, with offset, as a stranger (nothing), and counted.
        #expect(RestWorld.array(try rest.get("tasks?select=id&offset=1000")).count == 1_505)
        #expect(RestWorld.array(try rest.get("tasks?select=id", as: .stranger)).isEmpty)
        let ranged = try rest.get("tasks?select=id&offset=5", headers: ["Prefer": "count=exact"])
        #expect(ranged.status == 206 && ranged.header("Content-Range") == "5-2504/2505")
    }

    @Test func aClientThatLeavesMidStreamFreesTheConnectionAndTransaction() throws {
        let rest = try RestWorld()
        // ~40 MB of rows: far more than the socket buffers and the stream's high-water mark
        // hold, so the producer is parked on backpressure when the client goes.
        try Self.addTasks(rest, count: 20_000, padding: 2_000)
        let pool = rest.world.app.database.pool
        let socket = try Self.openRequest(port: rest.world.app.server.boundPort,
                                          path: "/rest/v1/tasks?select=*", token: rest.world.token(.owner))
        var head = [UInt8](repeating: 0, count: 16_384)
        let received = recv(socket, &head, head.count, 0)
        #expect(received > 0)
        #expect(String(decoding: head[0..<max(0, received)], as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        // The stream holds its connection while the client is not reading.
        #expect(try Self.eventually { pool.stats.inUse >= 1 })
        close(socket)
        #expect(try Self.eventually { pool.stats.inUse == 0 }, "the stream's connection returned to the pool")
        let open = try pool.query("""
            SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'
            """)
        #expect(try open.first?.decode("n", as: Int.self) == 0)
        // And the server keeps serving.
        #expect(try rest.titles("tasks?title=eq.Alpha") == ["Alpha"])
    }

    static func eventually(seconds: Double = 10, _ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            usleep(20_000)
        }
        return try condition()
    }

    /// Sends a GET on a raw socket and returns it unread, with a small receive buffer.
    static func openRequest(port: Int, path: String, token: String) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
        var small: Int32 = 4096
        setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestHTTPClient.ClientError.socket("connect: \(errno)") }
        let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\napikey: \(AuthTestServer.publishableKey)\r\n\r\n"
        _ = Array(request.utf8).withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return descriptor
    }
}
