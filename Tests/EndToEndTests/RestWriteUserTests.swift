import Foundation
import Postgres
import Testing

/// `/rest/v1/users` writes under `/v1`'s user rules: your own profile, admins as on
/// `PATCH /v1/users/{id}`, no creation or deletion.
@Suite struct RestWriteUserTests {
    @Test func aUserRenamesThemselvesButNobodyElse() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner, .stranger])
        let me = rest.world.id(.owner)
        let renamed = try rest.send("PATCH", "users?id=eq.\(me.uppercased())", as: .owner,
                                    body: ["name": "Rita R.", "email": "ignored@example.com", "version": 1],
                                    prefer: ["return=representation"], headers: ["Accept": "application/vnd.pgrst.object+json"])
        #expect(renamed.status == 200 && renamed.json?["name"] as? String == "Rita R.", "\(RestWriteWorld.body(renamed))")
        #expect(try rest.text("SELECT email FROM users WHERE id = \(me)::uuid") == "owner@example.com")

        let hash = String(repeating: "ab", count: 32)
        // avatar_hash must name a stored image (migration 0014): unknown first, then stored.
        let unknown = try rest.send("PATCH", "users?id=eq.\(me)", as: .owner, body: ["avatar_hash": hash])
        #expect(unknown.status == 422 && unknown.json?["code"] as? String == "unknown_avatar", "\(RestWriteWorld.body(unknown))")
        try rest.world.app.database.pool.execute(
            "INSERT INTO avatars (hash, content_type, bytes) VALUES (\(hash), 'image/png', '\\x00'::bytea)")
        let avatar = try rest.send("PATCH", "users?id=eq.\(me)", as: .owner, body: ["avatar_hash": hash])
        #expect(avatar.status == 204)
        #expect(try rest.text("SELECT avatar_hash FROM users WHERE id = \(me)::uuid") == hash)

        // Everyone is visible, so a filter matching others is a 403 and changes nobody.
        let everyone = try rest.send("PATCH", "users?name=neq.x", as: .owner, body: ["name": "Same"])
        #expect(everyone.status == 403 && everyone.json?["code"] as? String == "42501")
        #expect(try rest.count("SELECT count(*)::int FROM users WHERE name = 'Same'") == 0)
        for body in [["user_type": "admin"], ["deactivated_at": "2026-01-01T00:00:00Z"]] {
            let refused = try rest.send("PATCH", "users?id=eq.\(me)", as: .owner, body: body)
            #expect(refused.status == 403, "\(body)")
        }
        #expect(try rest.send("PATCH", "users?id=eq.\(me)", as: .owner, body: ["avatar_hash": "nope"]).status == 422)
        for method in ["POST", "DELETE"] {
            let refused = try rest.send(method, "users?id=eq.\(me)", as: .owner, body: method == "POST" ? ["name": "x"] : nil)
            #expect(refused.status == 403 && refused.json?["code"] as? String == "42501", "\(method)")
        }
    }

    @Test func anAdminDeactivatesAndReactivatesButNeverThemselves() throws {
        let rest = try RestWriteWorld(extraRoles: [.owner])
        let owner = rest.world.id(.owner)
        let deactivated = try rest.send("PATCH", "users?id=eq.\(owner)", as: .admin,
                                        body: ["deactivated_at": "2026-01-01T00:00:00", "user_type": "realtor"])
        #expect(deactivated.status == 204, "\(RestWriteWorld.body(deactivated))")
        #expect(try rest.count("SELECT count(*)::int FROM users WHERE id = \(owner)::uuid AND deactivated_at IS NOT NULL") == 1)
        // The deactivated user's session ends at once, as with PATCH /v1/users/{id}.
        #expect(try rest.send("PATCH", "users?id=eq.\(owner)", as: .owner, body: ["name": "x"]).status == 401)
        let reactivated = try rest.send("PATCH", "users?id=eq.\(owner)", as: .admin, body: ["deactivated_at": NSNull()])
        #expect(reactivated.status == 204)
        let selfLockout = try rest.send("PATCH", "users?id=eq.\(rest.world.id(.admin))", as: .admin,
                                        body: ["user_type": "realtor"])
        #expect(selfLockout.status == 422)
        #expect(try rest.text("SELECT user_type FROM users WHERE id = \(rest.world.id(.admin))::uuid") == "admin")
    }
}
