#ifndef CLIBCURL_SHIM_H
#define CLIBCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed
   wrapper per argument kind the SMTP and Slack transports use. */
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
static inline CURLcode dispatch_curl_setopt_write_function(CURL *handle, curl_write_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}
/* The seconds of a 429/503 answer's Retry-After (0 when absent); libcurl parses both forms. */
static inline CURLcode dispatch_curl_retry_after(CURL *handle, curl_off_t *seconds) {
    return curl_easy_getinfo(handle, CURLINFO_RETRY_AFTER, seconds);
}
static inline CURLcode dispatch_curl_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}
#endif
