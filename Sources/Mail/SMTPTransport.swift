import CLibCurl
import Foundation

/// Delivers over SMTP with libcurl: EHLO, STARTTLS (required, never opportunistic) or
/// implicit TLS, AUTH, MAIL FROM / RCPT TO, DATA with dot-stuffing. Certificates are always
/// verified, against SMTP_CA_FILE when set. One connection per mail: mail volume is low, and
/// a fresh connection never inherits a half-broken session.
public struct SMTPTransport: MailTransport {
    public let settings: SMTPSettings
    /// Connecting (TCP and TLS) may take this long.
    public let connectTimeout: Duration
    /// One whole delivery may take this long; the sender's lease must be longer.
    public let timeout: Duration

    public init(settings: SMTPSettings, connectTimeout: Duration = .seconds(10), timeout: Duration = .seconds(60)) {
        self.settings = settings
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }

    /// curl_global_init is not thread-safe: done once, lazily (Swift runs a static
    /// initializer exactly once).
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    public func deliver(_ message: String, from sender: String, to recipient: String,
                        cancellation: MailCancellation) throws(MailDeliveryError) {
        guard Self.globalInit == CURLE_OK, let handle = curl_easy_init() else {
            throw MailDeliveryError("libcurl could not be initialised")
        }
        defer { curl_easy_cleanup(handle) }
        let recipients = curl_slist_append(nil, "<\(recipient)>")
        defer { curl_slist_free_all(recipients) }
        let upload = Upload(bytes: Array(message.utf8), cancellation: cancellation)
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        let code: CURLcode = withExtendedLifetime(upload) {
            errorBuffer.withUnsafeMutableBufferPointer { buffer in
                let context = Unmanaged.passUnretained(upload).toOpaque()
                var status = CURLE_OK
                func set(_ result: CURLcode) { if status == CURLE_OK { status = result } }
                set(dispatch_curl_setopt_string(handle, CURLOPT_URL, settings.url))
                // Only SMTP, whatever the URL says: never follow a misconfiguration elsewhere.
                set(dispatch_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"))
                set(dispatch_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
                set(dispatch_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(connectTimeout)))
                set(dispatch_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout)))
                if settings.tls == .starttls {
                    set(dispatch_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_ALL.rawValue)))
                }
                if let caFile = settings.caFile { set(dispatch_curl_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
                if let username = settings.username, let password = settings.password {
                    set(dispatch_curl_setopt_string(handle, CURLOPT_USERNAME, username))
                    set(dispatch_curl_setopt_string(handle, CURLOPT_PASSWORD, password))
                }
                set(dispatch_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>"))
                set(dispatch_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients))
                set(dispatch_curl_setopt_long(handle, CURLOPT_UPLOAD, 1))
                set(dispatch_curl_setopt_read_function(handle, Self.read))
                set(dispatch_curl_setopt_pointer(handle, CURLOPT_READDATA, context))
                set(dispatch_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0))
                set(dispatch_curl_setopt_xferinfo_function(handle, Self.progress))
                set(dispatch_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context))
                set(dispatch_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
                guard status == CURLE_OK else { return status }
                return curl_easy_perform(handle)
            }
        }
        guard code == CURLE_OK else {
            var reply = 0
            _ = dispatch_curl_response_code(handle, &reply)
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            var text = String(cString: curl_easy_strerror(code))
            if !detail.isEmpty { text += ": \(detail)" }
            if reply > 0 { text += " (SMTP reply \(reply))" }
            throw MailDeliveryError(text)
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds) * 1000 + Int(duration.components.attoseconds / 1_000_000_000_000_000)
    }

    /// The message, fed to libcurl's read callback in whatever pieces it asks for.
    private final class Upload {
        let bytes: [UInt8]
        var offset = 0
        let cancellation: MailCancellation
        init(bytes: [UInt8], cancellation: MailCancellation) {
            self.bytes = bytes
            self.cancellation = cancellation
        }
    }

    private static let read: curl_read_callback = { buffer, size, count, context in
        guard let buffer, let context else { return Int(CURL_READFUNC_ABORT) }
        let upload = Unmanaged<Upload>.fromOpaque(context).takeUnretainedValue()
        let length = min(size * count, upload.bytes.count - upload.offset)
        upload.bytes.withUnsafeBufferPointer { source in
            guard length > 0, let base = source.baseAddress else { return }
            UnsafeMutableRawPointer(buffer).copyMemory(from: base + upload.offset, byteCount: length)
        }
        upload.offset += length
        return length
    }

    /// Non-zero aborts the transfer (CURLE_ABORTED_BY_CALLBACK): the sender is stopping.
    private static let progress: curl_xferinfo_callback = { context, _, _, _, _ in
        guard let context else { return 0 }
        return Unmanaged<Upload>.fromOpaque(context).takeUnretainedValue().cancellation.isCancelled ? 1 : 0
    }
}
