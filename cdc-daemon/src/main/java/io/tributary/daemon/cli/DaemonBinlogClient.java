package io.tributary.daemon.cli;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;

/**
 * Asks a running daemon for its {@link BinlogListing}: {@code GET <management URL>/binlog.json} (the management port,
 * {@code server.address:server.port}, default {@code http://127.0.0.1:9400}). Every failure is an {@link IOException}
 * naming the URL and what failed: nothing listening, no answer in time, an HTTP error with the daemon's reason, or an
 * answer that is not a listing (another service on that port).
 */
final class DaemonBinlogClient {

    static final String PATH = "/binlog.json";
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** The daemon reads every file not read before; a large binlog takes a while on the first call. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(5);

    private DaemonBinlogClient() {
    }

    static boolean isUrl(String arg) {
        return arg.startsWith("http://") || arg.startsWith("https://");
    }

    /** The listing the daemon at {@code base} serves. */
    static BinlogListing fetch(String base) throws IOException {
        if (!isUrl(base)) {
            throw new IOException("'" + base + "' is not an http:// or https:// URL of a daemon's management port"
                    + " (e.g. http://127.0.0.1:9400)");
        }
        String trimmed = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        String url = trimmed.endsWith(PATH) ? trimmed : trimmed + PATH;
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new IOException("'" + base + "' is not a valid URL: " + e.getMessage(), e);
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();
        HttpResponse<String> response;
        try {
            response = http.send(HttpRequest.newBuilder(uri).timeout(ANSWER_TIMEOUT).header("Accept", "application/json")
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpConnectTimeoutException e) {
            throw new IOException("cannot reach the daemon at " + url + ": no connection within "
                    + CONNECT_TIMEOUT.toSeconds() + " s (check server.address and server.port)", e);
        } catch (HttpTimeoutException e) {
            throw new IOException("the daemon at " + url + " did not answer within " + ANSWER_TIMEOUT.toMinutes()
                    + " min", e);
        } catch (ConnectException e) {
            throw new IOException("cannot reach the daemon at " + url + ": connection refused (is the daemon running,"
                    + " and are server.address and server.port right?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while asking " + url, e);
        } catch (IOException | IllegalArgumentException e) {
            throw new IOException("cannot reach the daemon at " + url + ": " + describe(e), e);
        }
        String body = response.body();
        if (response.statusCode() != 200) {
            throw new IOException("the daemon at " + url + " answered HTTP " + response.statusCode() + ": "
                    + abbreviate(body));
        }
        try {
            BinlogListing listing = new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
                    .readValue(body, BinlogListing.class);
            if (listing.directory() == null || listing.files() == null) {
                throw new IOException("no directory or files in it");
            }
            return listing;
        } catch (IOException e) {
            throw new IOException(url + " answered something other than a binlog listing (" + e.getMessage()
                    .lines().findFirst().orElse("") + "): " + abbreviate(body), e);
        }
    }

    private static String describe(Exception e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    private static String abbreviate(String body) {
        String b = body == null ? "" : body.strip();
        return b.isEmpty() ? "(empty body)" : b.length() > 300 ? b.substring(0, 300) + "..." : b;
    }
}
