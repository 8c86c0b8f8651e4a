import COpenSSL
import Foundation

/// A provider's private key that signs JWS tokens: a P-256 key (an APNs `.p8`) signs ES256,
/// an RSA key (a Google service account) RS256. The key is read from PEM text the caller
/// loaded from a file; it never leaves this object and no error carries it.
///
/// ES256 signatures are the JWS form, the raw 32-byte `r` and `s` concatenated (RFC 7518
/// §3.4), not the DER `ECDSA-Sig-Value` OpenSSL produces: APNs rejects the DER form.
public final class JWSSigningKey: @unchecked Sendable {
    public enum Algorithm: String, Sendable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    public let algorithm: Algorithm
    // Immutable after init; OpenSSL's signing with a shared EVP_PKEY is thread-safe.
    private let key: OpaquePointer

    public init(pem: String) throws(CredentialsError) {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw .signingKeyInvalid }
        switch EVP_PKEY_get_base_id(parsed) {
        case EVP_PKEY_EC where EVP_PKEY_get_bits(parsed) == 256:
            algorithm = .es256
        case EVP_PKEY_RSA where EVP_PKEY_get_bits(parsed) >= 2048:
            algorithm = .rs256
        default:
            EVP_PKEY_free(parsed)
            throw .signingKeyInvalid
        }
        key = parsed
    }

    deinit {
        EVP_PKEY_free(key)
    }

    /// `header.payload.signature`, each part base64url without padding; `header` gains `alg`.
    public func token(header: [String: String], claims: [String: Any]) throws(CredentialsError) -> String {
        var header = header
        header["alg"] = algorithm.rawValue
        guard let headerJSON = try? JSONSerialization.data(withJSONObject: header, options: .sortedKeys),
              let claimsJSON = try? JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        else { throw .signingFailed }
        let input = Base64.urlSafeEncoded(Array(headerJSON)) + "." + Base64.urlSafeEncoded(Array(claimsJSON))
        return input + "." + Base64.urlSafeEncoded(try sign(Array(input.utf8)))
    }

    /// The JWS signature of `message` (SHA-256): raw r‖s for ES256, PKCS #1 v1.5 for RS256.
    public func sign(_ message: [UInt8]) throws(CredentialsError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .signingFailed }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { throw .signingFailed }
        var length = 0
        guard EVP_DigestSign(context, nil, &length, message, message.count) == 1 else { throw .signingFailed }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else { throw .signingFailed }
        signature.removeSubrange(length...)
        return algorithm == .es256 ? try Self.raw(der: signature) : signature
    }

    /// DER `SEQUENCE { r INTEGER, s INTEGER }` → 64 bytes r‖s, each left-padded to 32.
    static func raw(der: [UInt8]) throws(CredentialsError) -> [UInt8] {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw .signingFailed }
        defer { ECDSA_SIG_free(parsed) }
        var r: OpaquePointer?, s: OpaquePointer?
        ECDSA_SIG_get0(parsed, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let written = raw.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
        }
        guard written else { throw .signingFailed }
        return raw
    }
}
