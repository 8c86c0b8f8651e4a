import HTTPServer

extension Configuration {
    /// WebSocket limits and timers (`WS_*`); nil keeps the server's built-in default
    /// (`WebSocketConfiguration`).
    struct WebSocketLimits: Sendable {
        var maxFrameBytes: Int?
        var maxMessageBytes: Int?
        var maxFramesPerSecond: Int?
        var sendQueueBytes: Int?
        var idleTimeout: Double?
        var pingInterval: Double?
        var pongTimeout: Double?
        var closeTimeout: Double?
        /// REALTIME_PUBLIC_BROADCAST (default false): public realtime topics carry broadcast
        /// between any signed-in users; off, only private topics the server authorizes do.
        var realtimePublicBroadcast = false

        static func load(_ reader: EnvironmentReader) throws(ConfigurationError) -> WebSocketLimits {
            let publicBroadcast = reader.string(.realtimePublicBroadcast)?.lowercased()
            guard publicBroadcast == nil || ["true", "false", "1", "0"].contains(publicBroadcast ?? "") else {
                throw ConfigurationError("REALTIME_PUBLIC_BROADCAST must be true or false (got \"\(publicBroadcast ?? "")\")")
            }
            return WebSocketLimits(
                maxFrameBytes: try reader.optionalInteger(.webSocketMaxFrameBytes, in: 125...(1 << 30)),
                maxMessageBytes: try reader.optionalInteger(.webSocketMaxMessageBytes, in: 125...(1 << 30)),
                maxFramesPerSecond: try reader.optionalInteger(.webSocketMaxFramesPerSecond, in: 1...1_000_000),
                sendQueueBytes: try reader.optionalInteger(.webSocketSendQueueBytes, in: 4096...(1 << 30)),
                idleTimeout: try reader.optionalSeconds(.webSocketIdleTimeout),
                pingInterval: try reader.optionalSeconds(.webSocketPingInterval),
                pongTimeout: try reader.optionalSeconds(.webSocketPongTimeout),
                closeTimeout: try reader.optionalSeconds(.webSocketCloseTimeout),
                realtimePublicBroadcast: publicBroadcast == "true" || publicBroadcast == "1")
        }

        var serverConfiguration: WebSocketConfiguration {
            var configuration = WebSocketConfiguration()
            if let value = maxFrameBytes { configuration.maxFrameBytes = value }
            if let value = maxMessageBytes { configuration.maxMessageBytes = value }
            if let value = maxFramesPerSecond { configuration.maxFramesPerSecond = value }
            if let value = sendQueueBytes { configuration.sendQueueBytes = value }
            if let value = idleTimeout { configuration.idleTimeout = .seconds(value) }
            if let value = pingInterval { configuration.pingInterval = .seconds(value) }
            if let value = pongTimeout { configuration.pongTimeout = .seconds(value) }
            if let value = closeTimeout { configuration.closeTimeout = .seconds(value) }
            return configuration
        }
    }
}
