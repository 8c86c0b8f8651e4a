import COpenSSL
import Foundation

/// Signs and verifies HS256 JSON Web Tokens (RFC 7519) with one shared secret.
///
/// Verification accepts exactly `{"alg":"HS256"}` headers: the algorithm is fixed by the server,
/// never chosen by the token, which rules out `alg: none` and algorithm-confusion attacks.
public struct JWTSigner: Sendable {
    private let key: [UInt8]

    public init(secret: String) {
        key = Array(secret.utf8)
    }

    private struct Header: Codable {
        var alg: String
        var typ: String?
    }

    private static let encodedHeader = Base64.urlSafeEncoded(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))

    public func sign(_ claims: AccessTokenClaims) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = Base64.urlSafeEncoded(Array(try encoder.encode(claims)))
        let signingInput = Self.encodedHeader + "." + payload
        return signingInput + "." + Base64.urlSafeEncoded(mac(Array(signingInput.utf8)))
    }

    /// The claims of a valid, unexpired token; throws the reason otherwise.
    public func verify(_ token: String, now: Date = Date()) throws(CredentialsError) -> AccessTokenClaims {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerBytes = Base64.urlSafeDecoded(parts[0]),
              let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes))
        else { throw .tokenMalformed }
        guard header.alg == "HS256" else { throw .tokenAlgorithmUnsupported }
        guard let signature = Base64.urlSafeDecoded(parts[2]) else { throw .tokenMalformed }
        let signingInput = Array(token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard ConstantTime.equals(mac(signingInput), signature) else { throw .tokenSignatureInvalid }
        guard let payload = Base64.urlSafeDecoded(parts[1]),
              let claims = try? JSONDecoder().decode(AccessTokenClaims.self, from: Data(payload))
        else { throw .tokenMalformed }
        guard Double(claims.exp) > now.timeIntervalSince1970 else { throw .tokenExpired }
        return claims
    }

    private func mac(_ data: [UInt8]) -> [UInt8] { HMACSHA256.mac(key: key, data) }
}
