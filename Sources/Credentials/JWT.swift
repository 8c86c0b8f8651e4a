import Foundation

/// The claims of an access token (SPEC §5: `sub` = user id, `role` = `authenticated`, `exp`, `iat`;
/// `sid` names the refresh session so logout/revocation can be checked cheaply).
public struct AccessTokenClaims: Sendable, Equatable, Codable {
    public var sub: String
    public var role: String
    public var iat: Int64
    public var exp: Int64
    public var sid: String

    public init(sub: String, role: String = "authenticated", iat: Int64, exp: Int64, sid: String) {
        self.sub = sub; self.role = role; self.iat = iat; self.exp = exp; self.sid = sid
    }
}

public enum JWTError: Error, Equatable, Sendable {
    case malformed
    case unsupportedAlgorithm   // anything but HS256, including `none`
    case badSignature
    case expired
    case invalidClaims
}

/// Signs and verifies HS256 JWTs. Verification needs no database round trip.
public struct JWTSigner: Sendable {
    private let key: [UInt8]
    /// Accepted clock skew for `iat`/`exp` between server instances.
    public var leeway: Int64 = 30

    public init(secret: [UInt8]) { self.key = secret }

    public func sign(_ claims: AccessTokenClaims) -> String {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Base64URL.encode((try? encoder.encode(claims)) ?? Data())
        let signingInput = header + "." + payload
        return signingInput + "." + Base64URL.encode(HMACSHA256.authenticate(Array(signingInput.utf8), key: key))
    }

    public func verify(_ token: String, now: Int64 = Int64(Date().timeIntervalSince1970)) throws(JWTError) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]),
              let signature = Base64URL.decode(parts[2]) else { throw .malformed }
        guard let header = try? JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any] else {
            throw .malformed
        }
        // The algorithm is fixed by us, never chosen by the token: reject `none`, RS256, etc.
        guard header["alg"] as? String == "HS256" else { throw .unsupportedAlgorithm }
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        guard constantTimeEquals(HMACSHA256.authenticate(signingInput, key: key), signature) else {
            throw .badSignature
        }
        guard let payload = Base64URL.decode(parts[1]),
              let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: Data(payload)) else {
            throw .invalidClaims
        }
        guard claims.role == "authenticated", UUID(uuidString: claims.sub) != nil, claims.iat <= now + leeway else {
            throw .invalidClaims
        }
        guard now < claims.exp + leeway else { throw .expired }
        return claims
    }
}
