import Domain

/// Judges each address libcurl resolved, just before the socket is opened, so a name that
/// resolves to somewhere forbidden (or is re-pointed there between a check and the connect)
/// is refused on the address actually used.
package protocol ConnectGuard: Sendable {
    /// Why connecting to `address` (resolved from `host`) is refused; nil when it is allowed.
    func refusal(host: String, address: NetworkAddress) -> String?
}
