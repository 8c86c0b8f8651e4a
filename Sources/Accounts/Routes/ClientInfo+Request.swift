import HTTP1
import HTTPServer
import RouteKit

extension ClientInfo {
    /// The facts of `request` the account service uses, with the caller when authenticated.
    package init(_ request: HTTPRequest, _ context: RequestContext) {
        self.init(address: context.clientAddress, userAgent: request.headers["User-Agent"],
                  deviceToken: DeviceCookie.presented(request), principal: context.principal as? Principal)
    }

    /// The caller and its address, for services that need no more of the request.
    package init(_ context: RequestContext) {
        self.init(address: context.clientAddress, principal: context.principal as? Principal)
    }
}
