import Accounts
import Domain
import Foundation
import HTTPServer
import JSON
import RouteKit

/// The session and user JSON of `/auth/v1`, shaped like GoTrue's (SUPABASE.md §1) so
/// supabase-swift and supabase-py decode them. Where our profile appears:
/// - `user_metadata`: `name` (the caller may change it with `PUT /auth/v1/user` `data.name`)
///   and `avatar_hash` (set by avatar uploads; read-only here);
/// - `app_metadata`: `user_type` (server-managed, like Supabase's app_metadata: only an admin
///   changes it, through `/v1/users/{id}`), plus GoTrue's `provider`/`providers` ("email").
enum GoTrueJSON {
    static let audience = "authenticated"

    static func user(_ user: User) -> JSONValue {
        let created = JSONOutput.timestamp(user.createdAt)
        return [
            "id": .string(user.id.uuidString.lowercased()),
            "aud": .string(audience),
            "role": .string(audience),
            "email": .string(user.email),
            "phone": "",
            // Accounts are created by an administrator: their address counts as confirmed.
            "email_confirmed_at": created,
            "confirmed_at": created,
            "app_metadata": [
                "provider": "email",
                "providers": ["email"],
                "user_type": .string(user.userType.rawValue),
            ],
            "user_metadata": [
                "name": .string(user.name),
                "avatar_hash": user.avatarHash.map(JSONValue.string) ?? .null,
            ],
            "identities": [],
            "created_at": created,
            "updated_at": JSONOutput.timestamp(user.updatedAt),
            "is_anonymous": false,
        ]
    }

    static func session(_ issued: AuthService.IssuedAccessToken, refreshToken: String, user: User) -> JSONValue {
        [
            "access_token": .string(issued.token),
            "token_type": "bearer",
            "expires_in": .number(Double(issued.lifetime)),
            "expires_at": .number(Double(issued.expiresAt)),
            "refresh_token": .string(refreshToken),
            "user": Self.user(user),
        ]
    }
}
