#ifndef CLIBCURL_SHIM_H
#define CLIBCURL_SHIM_H
#include <curl/curl.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <string.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
   wrapper per argument kind the SMTP and Slack transports and the webhook client use. */
static inline CURLcode dispatch_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode dispatch_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode dispatch_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode dispatch_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}
static inline CURLcode dispatch_curl_setopt_read_function(CURL *handle, curl_read_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
}
static inline CURLcode dispatch_curl_setopt_xferinfo_function(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}
/* The seconds of a 429/503 answer's Retry-After (0 when absent); libcurl parses both forms. */
static inline CURLcode dispatch_curl_retry_after(CURL *handle, curl_off_t *seconds) {
    return curl_easy_getinfo(handle, CURLINFO_RETRY_AFTER, seconds);
}
static inline CURLcode dispatch_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
/* CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION take the same callback type. */
static inline CURLcode dispatch_curl_setopt_write_function(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}
static inline CURLcode dispatch_curl_setopt_opensocket_function(CURL *handle, curl_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}
static inline CURLcode dispatch_curl_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}
/* The numeric address a connection is about to use (the webhook guard's input), as text;
   0 on success. struct curl_sockaddr's address is variable-length, awkward from Swift. */
static inline int dispatch_curl_sockaddr_text(const struct curl_sockaddr *address, char *out, socklen_t length) {
    const void *source;
    if (address->family == AF_INET) {
        source = &((const struct sockaddr_in *)&address->addr)->sin_addr;
    } else if (address->family == AF_INET6) {
        source = &((const struct sockaddr_in6 *)&address->addr)->sin6_addr;
    } else {
        return -1;
    }
    return inet_ntop(address->family, source, out, length) == NULL ? -1 : 0;
}
static inline curl_socket_t dispatch_curl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}
/* curl_multi_setopt is variadic too. */
static inline CURLMcode dispatch_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
/* The next finished transfer of `multi` and its result; NULL when none is left to read.
   CURLMsg's result sits in a union, awkward from Swift. */
static inline CURL *dispatch_curl_multi_next_done(CURLM *multi, CURLcode *result) {
    int left;
    CURLMsg *message;
    while ((message = curl_multi_info_read(multi, &left)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *result = message->data.result;
            return message->easy_handle;
        }
    }
    return NULL;
}
#endif
