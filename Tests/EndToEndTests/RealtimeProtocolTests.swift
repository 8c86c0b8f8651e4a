@testable import API
@testable import Accounts
import Domain
import Foundation
import HTTPServer
import JSON
@testable import Operations
@testable import Realtime
@testable import Resources
@testable import RouteKit
@testable import ServiceKit
@testable import Supabase
@testable import Sync
import Testing

/// The Phoenix serializers and the postgres_changes configuration, without sockets or a database.
@Suite struct RealtimeProtocolTests {
    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    static func array(_ text: String) -> [Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) as? [Any]
    }

    @Test func version1DecodesObjectsWithStringOrIntegerRefs() throws {
        let message = try PhoenixSerializer.v1.decode(#"{"topic":"realtime:room","event":"phx_join","payload":{"a":1},"ref":7,"join_ref":"7"}"#)
        #expect(message == PhoenixMessage(joinRef: "7", ref: "7", topic: "realtime:room", event: "phx_join", payload: ["a": 1]))
        let heartbeat = try PhoenixSerializer.v1.decode(#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"3"}"#)
        #expect(heartbeat.joinRef == nil && heartbeat.ref == "3")
    }

    @Test func version2DecodesArrays() throws {
        let message = try PhoenixSerializer.v2.decode(#"["1","2","realtime:room","broadcast",{"event":"e"}]"#)
        #expect(message == PhoenixMessage(joinRef: "1", ref: "2", topic: "realtime:room", event: "broadcast", payload: ["event": "e"]))
        let noRefs = try PhoenixSerializer.v2.decode(#"[null,null,"phoenix","heartbeat",{}]"#)
        #expect(noRefs.joinRef == nil && noRefs.ref == nil)
    }

    @Test(arguments: [
        (PhoenixSerializer.v1, "not json"),
        (.v1, #"["1","2","t","e",{}]"#),
        (.v1, #"{"topic":"t","event":"e","payload":[1]}"#),
        (.v1, #"{"topic":"","event":"e","payload":{}}"#),
        (.v1, #"{"topic":"t","payload":{}}"#),
        (.v1, #"{"topic":"t","event":"e","payload":{},"ref":true}"#),
        (.v2, #"{"topic":"t","event":"e","payload":{}}"#),
        (.v2, #"["1","2","t","e"]"#),
        (.v2, #"["1","2",3,"e",{}]"#),
        (.v2, #"["1","2","t","e","payload"]"#),
    ])
    func malformedMessagesAreRefusedWithAReason(serializer: PhoenixSerializer, text: String) {
        #expect(throws: PhoenixSerializer.DecodeError.self) { try serializer.decode(text) }
    }

    @Test func bothVersionsEncodeTheSameMessageInTheirShape() throws {
        let message = PhoenixOutbound(joinRef: "1", ref: nil, topic: "realtime:a\"b", event: "system", payload: #"{"x":[1]}"#)
        let v1 = try #require(Self.object(PhoenixSerializer.v1.encode(message)))
        #expect(v1["join_ref"] as? String == "1" && v1["ref"] is NSNull && v1["topic"] as? String == "realtime:a\"b")
        #expect(v1["event"] as? String == "system" && (v1["payload"] as? [String: Any])?["x"] as? [Int] == [1])
        let v2 = try #require(Self.array(PhoenixSerializer.v2.encode(message)))
        #expect(v2.count == 5 && v2[0] as? String == "1" && v2[1] is NSNull && v2[2] as? String == "realtime:a\"b")
        #expect(v2[3] as? String == "system" && (v2[4] as? [String: Any])?["x"] as? [Int] == [1])
    }

    @Test func vsnChoosesTheSerializerAndDefaultsToVersion1() {
        #expect(PhoenixSerializer(vsn: nil) == .v1)
        #expect(PhoenixSerializer(vsn: "1.0.0") == .v1)
        #expect(PhoenixSerializer(vsn: "2.0.0") == .v2)
        #expect(PhoenixSerializer(vsn: "3.0.0") == nil)
    }

    @Test func repliesSystemMessagesAndClosesHaveSupabasesShapes() throws {
        let join = PhoenixMessage(joinRef: "4", ref: "4", topic: "realtime:room", event: "phx_join", payload: [:])
        let reply = PhoenixOutbound.reply(to: join, ok: true, response: #"{"postgres_changes":[]}"#)
        #expect(reply.event == "phx_reply" && reply.ref == "4" && reply.joinRef == "4")
        #expect(Self.object(reply.payload)?["status"] as? String == "ok")
        let error = try #require(Self.object(PhoenixOutbound.error(to: join, reason: "why \"not\"").payload))
        #expect(error["status"] as? String == "error" && (error["response"] as? [String: Any])?["reason"] as? String == "why \"not\"")
        let system = try #require(Self.object(PhoenixOutbound.system(topic: "realtime:room", joinRef: "4", extension: "postgres_changes",
                                                                      ok: true, message: "Subscribed to PostgreSQL").payload))
        #expect(system["channel"] as? String == "room" && system["extension"] as? String == "postgres_changes")
        #expect(system["status"] as? String == "ok" && system["message"] as? String == "Subscribed to PostgreSQL")
        let close = PhoenixOutbound.close(topic: "realtime:room", joinRef: "4")
        #expect(close.event == "phx_close" && close.joinRef == "4" && close.payload == "{}")
    }

    @Test func quotingEscapesControlCharacters() throws {
        let text = "a\"b\\c\n\u{01}é"
        let decoded = try JSONSerialization.jsonObject(with: Data(JSONText.quoted(text).utf8), options: .fragmentsAllowed) as? String
        #expect(decoded == text)
    }

    // MARK: postgres_changes entries

    static func entry(_ text: String) throws -> PostgresChangeSubscription {
        let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        return try PostgresChangeSubscription(value)
    }

    @Test func anEntryIsEchoedExactlyWithAStableID() throws {
        let entry = try Self.entry(#"{"event":"*","schema":"public","table":"tasks","filter":"listing_id=eq.ABC"}"#.replacingOccurrences(of: "ABC", with: UUID().uuidString))
        let echo = try #require(Self.object(entry.echo))
        #expect(echo["event"] as? String == "*" && echo["schema"] as? String == "public" && echo["table"] as? String == "tasks")
        #expect((echo["filter"] as? String)?.hasPrefix("listing_id=eq.") == true)
        #expect(echo["id"] as? Int == entry.id)
        let again = try Self.entry(String(decoding: try JSONSerialization.data(withJSONObject: echo.filter { $0.key != "id" }), as: UTF8.self))
        #expect(again.id == entry.id)
        let other = try Self.entry(#"{"event":"INSERT","schema":"public","table":"tasks"}"#)
        #expect(other.id != entry.id)
        #expect(try #require(Self.object(other.echo))["filter"] == nil)
    }

    @Test(arguments: [
        #"{"event":"UPSERT","schema":"public","table":"tasks"}"#,
        #"{"event":"*","schema":"private","table":"tasks"}"#,
        #"{"event":"*","schema":"public","table":"auth_sessions"}"#,
        #"{"event":"*","schema":"public","filter":"id=eq.1"}"#,
        #"{"event":"*","schema":"public","table":"tasks","filter":"nope=eq.1"}"#,
        #"{"event":"*","schema":"public","table":"tasks","filter":"title=like.a*"}"#,
        #"{"event":"*","schema":"public","table":"tasks","filter":"id=eq.not-a-uuid"}"#,
        #"{"event":"*","schema":"public","table":"tasks","filter":"status"}"#,
        #"{"event":"*","schema":"public","table":"tasks","filter":"status=in.()"}"#,
        #"{"event":"*","schema":"public","table":"listings","filter":"price=gt.cheap"}"#,
        #"{"event":"*","schema":"public","table":"listings","filter":"source_slack_messages=eq.a"}"#,
        #"["not an object"]"#,
    ])
    func entriesTheServerCannotServeAreRefusedWithAReason(text: String) {
        #expect(throws: RealtimeJoinError.self) { try Self.entry(text) }
    }

    static func change(_ type: RealtimeChange.Kind, _ resource: Resource, _ record: [String: JSONValue]) -> RealtimeChange {
        RealtimeChange(resource: resource, type: type, record: record, recordJSON: JSONText.encode(.object(record)),
                       commitTimestamp: "2026-11-23T06:00:00.000Z", cursor: "c")
    }

    @Test func filtersCompareAsTheColumnsTypeDoes() throws {
        let id = UUID()
        let task = Self.change(.update, .tasks, ["id": .string(id.uuidString.lowercased()), "status": "open", "version": 3,
                                                 "updated_at": "2026-11-23T06:00:00.000Z", "listing_id": .null])
        let cases: [(String, Bool)] = [
            ("id=eq.\(id.uuidString)", true),            // upper-case uuid, as Swift sends it
            ("id=neq.\(id.uuidString)", false),
            ("status=eq.open", true), ("status=neq.open", false),
            ("status=in.(completed,open)", true), ("status=in.(\"completed\",\"deleted\")", false),
            ("version=gt.2", true), ("version=gte.3", true), ("version=lt.3", false), ("version=lte.3", true),
            ("updated_at=gt.2026-11-23T05:59:59Z", true), ("updated_at=lt.2026-11-23T07:00:00+01:00", false),
            ("listing_id=eq.\(id.uuidString)", false), ("listing_id=neq.\(id.uuidString)", false), // null matches nothing
        ]
        for (filter, expected) in cases {
            let entry = try Self.entry(#"{"event":"*","schema":"public","table":"tasks","filter":"\#(filter.replacingOccurrences(of: "\"", with: "\\\""))"}"#)
            #expect(entry.matches(task) == expected, "\(filter)")
        }
    }

    @Test func eventsAndTablesSelectChanges() throws {
        let row: [String: JSONValue] = ["id": .string(UUID().uuidString.lowercased()), "status": "open"]
        let insert = Self.change(.insert, .tasks, row), update = Self.change(.update, .tasks, row)
        let delete = Self.change(.delete, .tasks, ["id": row["id"]!]), note = Self.change(.insert, .notes, row)
        let all = try Self.entry(#"{"event":"*","schema":"public"}"#)
        #expect([insert, update, delete, note].allSatisfy(all.matches))
        let inserts = try Self.entry(#"{"event":"INSERT","schema":"public","table":"tasks"}"#)
        #expect(inserts.matches(insert) && !inserts.matches(update) && !inserts.matches(delete) && !inserts.matches(note))
        let deletes = try Self.entry(#"{"event":"DELETE","schema":"public","table":"tasks","filter":"status=eq.done"}"#)
        // A row that left the view is known by id only: a filter on another column cannot exclude it.
        #expect(deletes.matches(delete) && !deletes.matches(update))
        let byOtherID = try Self.entry(#"{"event":"DELETE","schema":"public","table":"tasks","filter":"id=eq.\#(UUID().uuidString)"}"#)
        #expect(!byOtherID.matches(delete))
    }

    @Test func changePayloadsCarryWhatClientsRequire() throws {
        let id = UUID().uuidString.lowercased()
        let update = Self.change(.update, .tasks, ["id": .string(id), "title": "t", "version": 2])
        let data = try #require(Self.object(update.payload(ids: [5, 9]))?["data"] as? [String: Any])
        #expect(Self.object(update.payload(ids: [5, 9]))?["ids"] as? [Int] == [5, 9])
        #expect(data["type"] as? String == "UPDATE" && data["schema"] as? String == "public" && data["table"] as? String == "tasks")
        #expect(data["commit_timestamp"] as? String == "2026-11-23T06:00:00.000Z" && data["errors"] is NSNull)
        #expect((data["record"] as? [String: Any])?["title"] as? String == "t")
        #expect((data["old_record"] as? [String: Any])?["id"] as? String == id)
        let columns = try #require(data["columns"] as? [[String: String]])
        #expect(columns.contains(["name": "id", "type": "uuid"]) && columns.contains(["name": "version", "type": "int4"]))
        #expect(columns.map { $0["name"] } == Resource.tasks.description.columns.map(\.name))
        let delete = try #require(Self.object(Self.change(.delete, .tasks, ["id": .string(id)]).payload(ids: [1]))?["data"] as? [String: Any])
        #expect(delete["type"] as? String == "DELETE" && (delete["old_record"] as? [String: String]) == ["id": id])
    }
}
