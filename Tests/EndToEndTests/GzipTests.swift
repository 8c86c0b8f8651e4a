import Foundation
import Testing

/// gzip over real sockets: the compressed body is checked with the system's
/// `gunzip`, independent of the server's zlib code.
@Suite struct GzipTests {
    static func world() throws -> ResourceWorld {
        let world = try ResourceWorld(extraRoles: [])
        try world.app.database.pool.execute("""
            INSERT INTO tasks (title, description, declared_by)
            SELECT 'Call the buyer about offer ' || g, 'Ask about the inspection date', \(world.id(.admin))::uuid
            FROM generate_series(1, 40) g
            """)
        return world
    }

    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gunzip")
        process.arguments = ["-c"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return Array(data)
    }

    static func varies(_ response: TestHTTPClient.Response) -> Bool {
        response.headers.filter { $0.name.lowercased() == "vary" }
            .contains { $0.value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.contains("accept-encoding") }
    }

    @Test func gzipBodyDecompressesToTheIdentityBody() throws {
        let world = try Self.world()
        let plain = try world.request("GET", "/v1/tasks?limit=100", as: .admin)
        let zipped = try world.request("GET", "/v1/tasks?limit=100", as: .admin, headers: ["Accept-Encoding": "br, gzip;q=0.9"])
        #expect(plain.status == 200 && zipped.status == 200)
        #expect(plain.header("Content-Encoding") == nil)
        #expect(zipped.header("Content-Encoding") == "gzip")
        #expect(Self.varies(plain) && Self.varies(zipped))
        #expect(zipped.header("Content-Length") == String(zipped.body.count))
        #expect(zipped.body.count * 4 < plain.body.count, "\(zipped.body.count) vs \(plain.body.count)")
        #expect(try Self.gunzip(zipped.body) == plain.body)
        // The sync feed goes through the same middleware.
        let sync = try world.request("GET", "/v1/sync", as: .admin, headers: ["Accept-Encoding": "gzip"])
        #expect(sync.header("Content-Encoding") == "gzip")
        let feed = try JSONSerialization.jsonObject(with: Data(try Self.gunzip(sync.body))) as? [String: Any]
        #expect((feed?["tasks"] as? [Any])?.count == 40)
    }

    @Test func headAnnouncesWhatGetSends() throws {
        let world = try Self.world()
        let headers = ["Accept-Encoding": "gzip"]
        let get = try world.request("GET", "/v1/tasks?limit=100", as: .admin, headers: headers)
        let head = try world.request("HEAD", "/v1/tasks?limit=100", as: .admin, headers: headers)
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
        #expect(head.header("Content-Encoding") == "gzip")
        #expect(head.header("Content-Length") == get.header("Content-Length"))
        #expect(Self.varies(head))
    }

    @Test(arguments: ["gzip;q=0", "identity", "*;q=0", "deflate"])
    func refusedGzipAnswersIdentity(_ acceptEncoding: String) throws {
        let world = try Self.world()
        let response = try world.request("GET", "/v1/tasks?limit=100", as: .admin, headers: ["Accept-Encoding": acceptEncoding])
        #expect(response.header("Content-Encoding") == nil)
        #expect(Self.varies(response))
        #expect(response.json?["items"] is [Any])
    }

    @Test func smallAndVersionedResponsesStayIdentity() throws {
        let world = try Self.world()
        let headers = ["Accept-Encoding": "gzip"]
        let me = try world.request("GET", "/v1/me", as: .admin, headers: headers)  // under 1 KiB
        #expect(me.status == 200 && me.body.count < 1024)
        #expect(me.header("Content-Encoding") == nil)
        #expect(!Self.varies(me))
        let id = try #require(ResourceWorld.ids(in: try world.request("GET", "/v1/tasks?limit=1", as: .admin)).first)
        try world.app.database.pool.execute("UPDATE tasks SET description = repeat('x', 5000) WHERE id = \(id)::uuid")
        let row = try world.request("GET", "/v1/tasks/\(id)", as: .admin, headers: headers)  // has an ETag
        #expect(row.body.count > 5000)
        #expect(row.header("Content-Encoding") == nil)
        #expect(row.header("ETag") != nil)
        let deleted = try world.request("DELETE", "/v1/api-keys/\(UUID())", as: .admin, headers: headers)
        #expect(deleted.header("Content-Encoding") == nil)
    }
}
