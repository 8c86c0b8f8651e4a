import Foundation
import Postgres
import Synchronization
import Testing

/// `order` on `GET /v1/{listings|tasks|activities}` : every order, ascending and
/// descending, walks every row exactly once in the right order with keyset cursors, also
/// while other requests write; bad orders and cursors of another order answer 400.
@Suite struct ListOrderTests {
    /// One task as the test inserted it: the sort keys, to compute the expected order here.
    struct Row {
        var id: String
        var createdAt: Int
        var dueDate: Int?
        var priority: Int
    }

    static let priorities = ["low", "medium", "high", "urgent"]

    /// 18 tasks with shared created_at / due_date / priority values (so ties fall to the id),
    /// a third without a due date, inserted directly with SQL.
    static func insertTasks(_ world: ResourceWorld, count: Int = 18) throws -> [Row] {
        var rows: [Row] = []
        try world.app.database.pool.withTransaction { connection in
            for index in 0..<count {
                let row = Row(id: UUID().uuidString.lowercased(), createdAt: index % 5,
                              dueDate: index % 3 == 0 ? nil : index % 4, priority: (index * 7) % 4 + 1)
                rows.append(row)
                try connection.execute("""
                    INSERT INTO tasks (id, title, declared_by, created_at, due_date, priority)
                    VALUES (\(row.id)::uuid, \("Task \(index)"), \(world.id(.admin))::uuid,
                            timestamptz '2026-01-01' + \(row.createdAt) * interval '1 hour',
                            timestamptz '2026-02-01' + \(row.dueDate) * interval '1 day',
                            \(priorities[row.priority - 1]))
                    """)
            }
        }
        return rows
    }

    /// What `order` must return: the key, then the id, both in the direction; no due date last.
    static func expected(_ rows: [Row], field: String, descending: Bool) -> [String] {
        func key(_ row: Row) -> Int? {
            switch field {
            case "created_at": return row.createdAt
            case "due_date": return row.dueDate
            default: return row.priority
            }
        }
        return rows.sorted { a, b in
            switch (key(a), key(b)) {
            case (nil, nil): return descending ? a.id > b.id : a.id < b.id
            case (nil, _): return false
            case (_, nil): return true
            case let (x?, y?) where x != y: return descending ? x > y : x < y
            default: return descending ? a.id > b.id : a.id < b.id
            }
        }.map(\.id)
    }

    /// Every id of `/v1/tasks?order=…`, page by page.
    static func walk(_ world: ResourceWorld, _ path: String, order: String, limit: Int,
                     between: () throws -> Void = {}) throws -> [String] {
        var seen: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let query = "order=\(order)&limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? "")
            let page = try world.request("GET", "\(path)?\(query)", as: .admin)
            #expect(page.status == 200, "\(order): \(String(decoding: page.body, as: UTF8.self))")
            seen += ResourceWorld.ids(in: page)
            cursor = page.json?["next_cursor"] as? String
            pages += 1
            try between()
        } while cursor != nil && pages < 200
        return seen
    }

    @Test(arguments: ["created_at", "due_date", "priority"], [false, true])
    func everyOrderWalksEveryRowOnceInOrder(field: String, descending: Bool) throws {
        let world = try ResourceWorld(extraRoles: [])
        let rows = try Self.insertTasks(world)
        let order = "\(field).\(descending ? "desc" : "asc")"
        let seen = try Self.walk(world, "/v1/tasks", order: order, limit: 4)
        #expect(seen == Self.expected(rows, field: field, descending: descending), "\(order)")
    }

    @Test func updatedAtDescendingIsNewestFirst() throws {
        let world = try ResourceWorld(extraRoles: [])
        var ids: [String] = []
        for index in 0..<5 {
            let created = try world.request("POST", "/v1/tasks", as: .admin, json: ["title": "Task \(index)"])
            ids.append(try #require(created.json?["id"] as? String))
        }
        _ = try world.request("PATCH", "/v1/tasks/\(ids[1])", as: .admin, json: ["title": "Touched"])
        let expected = [ids[1], ids[4], ids[3], ids[2], ids[0]]
        #expect(try Self.walk(world, "/v1/tasks", order: "updated_at.desc", limit: 2) == expected)
        #expect(try Self.walk(world, "/v1/tasks", order: "updated_at", limit: 2) == expected.reversed())
    }

    @Test func listingsOrderByCreationBothWays() throws {
        let world = try ResourceWorld(extraRoles: [])
        var ids: [String] = []
        try world.app.database.pool.withTransaction { connection in
            for index in 0..<5 {
                let id = UUID().uuidString.lowercased()
                ids.append(id)
                try connection.execute("""
                    INSERT INTO listings (id, address, owned_by, created_at)
                    VALUES (\(id)::uuid, 'Street', \(world.id(.admin))::uuid, timestamptz '2026-01-01' + \(index) * interval '1 day')
                    """)
            }
        }
        #expect(try Self.walk(world, "/v1/listings", order: "created_at.desc", limit: 2) == ids.reversed())
        #expect(try Self.walk(world, "/v1/listings", order: "created_at.asc", limit: 2) == ids)
    }

    /// Rows are edited (new titles, so new `updated_at`) and inserted between pages: rows whose
    /// sort key did not change are each listed exactly once, in order.
    @Test(arguments: ["created_at.desc", "due_date.asc", "due_date.desc", "priority.desc", "priority.asc"])
    func keysetStaysCorrectUnderConcurrentWrites(order: String) throws {
        let world = try ResourceWorld(extraRoles: [])
        let rows = try Self.insertTasks(world, count: 30)
        let parts = order.split(separator: ".")
        let expected = Self.expected(rows, field: String(parts[0]), descending: parts[1] == "desc")
        let stop = Atomic(false)
        let finished = DispatchSemaphore(value: 0)
        let client = world.app.client
        let headers = ["Authorization": "Bearer \(world.token(.admin))", "Content-Type": "application/json"]
        let targets = rows.map(\.id)
        let writer = Thread {
            var index = 0
            while !stop.load(ordering: .relaxed) {
                let edit = Array("{\"title\":\"Edit \(index)\"}".utf8)
                let new = Array("{\"title\":\"New \(index)\",\"priority\":\"urgent\"}".utf8)
                _ = try? client.perform(method: "PATCH", path: "/v1/tasks/\(targets[index % targets.count])", headers: headers, body: edit)
                _ = try? client.perform(method: "POST", path: "/v1/tasks", headers: headers, body: new)
                index += 1
            }
            finished.signal()
        }
        writer.start()
        let seen = try Self.walk(world, "/v1/tasks", order: order, limit: 3) { Thread.sleep(forTimeInterval: 0.01) }
        stop.store(true, ordering: .relaxed)
        finished.wait()
        let original = Set(expected)
        #expect(seen.filter(original.contains) == expected)
        #expect(Set(seen).count == seen.count, "no row twice")
    }

    /// `updated_at` itself moves when a row is written: an edited row jumps to the end of an
    /// ascending walk, so it may come twice but is never missed.
    @Test func updatedAtAscendingNeverMissesARowUnderWrites() throws {
        let world = try ResourceWorld(extraRoles: [])
        let rows = try Self.insertTasks(world, count: 30)
        var edits = 0
        let seen = try Self.walk(world, "/v1/tasks", order: "updated_at.asc", limit: 3) {
            let target = rows[(edits * 7) % rows.count].id
            _ = try world.request("PATCH", "/v1/tasks/\(target)", as: .admin, json: ["title": "Edit \(edits)"])
            edits += 1
        }
        #expect(Set(rows.map(\.id)).isSubset(of: Set(seen)))
    }

    @Test(arguments: ["/v1/tasks?order=title", "/v1/tasks?order=priority.up", "/v1/tasks?order=", "/v1/tasks?order=-updated_at",
                      "/v1/tasks?order=updated_at.desc.nullsfirst", "/v1/listings?order=due_date", "/v1/listings?order=priority.desc"])
    func badOrderAnswers400(_ path: String) throws {
        let world = try ResourceWorld(extraRoles: [])
        let response = try world.request("GET", path, as: .admin)
        #expect(response.status == 400)
        #expect(response.json?["code"] as? String == "invalid_parameter")
        #expect((response.json?["details"] as? [String: Any])?["parameter"] as? String == "order")
        #expect(response.json?["message"] is String)
        #expect(response.json?.keys.contains("hint") == true)
    }

    @Test func cursorOfAnotherOrderOrWithAForgedKeyAnswersInvalidCursor() throws {
        let world = try ResourceWorld(extraRoles: [])
        _ = try Self.insertTasks(world, count: 4)
        let first = try world.request("GET", "/v1/tasks?order=priority.desc&limit=2", as: .admin)
        let cursor = try #require(first.json?["next_cursor"] as? String)
        for query in ["order=priority.asc&cursor=\(cursor)", "cursor=\(cursor)", "order=due_date.desc&cursor=\(cursor)"] {
            let response = try world.request("GET", "/v1/tasks?\(query)", as: .admin)
            #expect(response.status == 400, "\(query)")
            #expect(response.json?["code"] as? String == "invalid_cursor", "\(query)")
        }
        // Well-formed cursors whose key no row of the order can have.
        let id = UUID().uuidString.lowercased()
        for (order, json) in [("priority.desc", "{\"o\":\"priority.desc\",\"u\":9,\"i\":\"\(id)\"}"),
                              ("created_at.asc", "{\"o\":\"created_at.asc\",\"u\":9223372036854775807,\"i\":\"\(id)\"}"),
                              ("created_at.asc", "{\"o\":\"created_at.asc\",\"u\":null,\"i\":\"\(id)\"}")] {
            let forged = Data(json.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let response = try world.request("GET", "/v1/tasks?order=\(order)&cursor=\(forged)", as: .admin)
            #expect(response.status == 400, "\(json)")
            #expect(response.json?["code"] as? String == "invalid_cursor", "\(json)")
        }
        // A due_date cursor may carry null: the walk is among rows without a due date.
        let nullKey = Data("{\"o\":\"due_date.asc\",\"u\":null,\"i\":\"\(id)\"}".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(try world.request("GET", "/v1/tasks?order=due_date.asc&cursor=\(nullKey)", as: .admin).status == 200)
    }
}
