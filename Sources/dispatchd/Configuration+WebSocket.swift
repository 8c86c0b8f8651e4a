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

        static func load(_ reader: EnvironmentReader) throws(ConfigurationError) -> WebSocketLimits {
            WebSocketLimits(
                maxFrameBytes: try reader.optionalInteger(.webSocketMaxFrameBytes, in: 125...(1 << 30)),
                maxMessageBytes: try reader.optionalInteger(.webSocketMaxMessageBytes, in: 125...(1 << 30)),
                maxFramesPerSecond: try reader.optionalInteger(.webSocketMaxFramesPerSecond, in: 1...1_000_000),
                sendQueueBytes: try reader.optionalInteger(.webSocketSendQueueBytes, in: 4096...(1 << 30)),
                idleTimeout: try reader.optionalSeconds(.webSocketIdleTimeout),
                pingInterval: try reader.optionalSeconds(.webSocketPingInterval),
                pongTimeout: try reader.optionalSeconds(.webSocketPongTimeout),
                closeTimeout: try reader.optionalSeconds(.webSocketCloseTimeout))
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
