import CLibCurl
import Foundation

/// What libcurl's callbacks gather of one provider answer (APNs, FCM, Google's token endpoint): the body (APNs: a `{"reason":…}` JSON of a
/// few dozen bytes on errors, empty on success, capped) and the `apns-id` header.
final class APNsExchange {
    static let maxBytes = 4096
    var body: [UInt8] = []
    var apnsID: String?

    static let write: curl_write_callback = { data, size, count, context in
        guard let context else { return 0 }
        let exchange = Unmanaged<APNsExchange>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        if let data, exchange.body.count < maxBytes {
            let take = min(length, maxBytes - exchange.body.count)
            exchange.body += UnsafeRawBufferPointer(start: data, count: take)
        }
        return length
    }

    static let header: curl_write_callback = { data, size, count, context in
        guard let context, let data else { return 0 }
        let exchange = Unmanaged<APNsExchange>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if line.lowercased().hasPrefix("apns-id:") {
            exchange.apnsID = line.dropFirst("apns-id:".count).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return length
    }
}
