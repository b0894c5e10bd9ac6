package io.tributary.daemon.status;

import io.tributary.daemon.cli.BinlogListing;
import io.tributary.daemon.runtime.TributaryMetrics;
import io.tributary.daemon.runtime.TributaryRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.http.CacheControl;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The status page and what it reads, on the management port, unauthenticated like {@code /actuator/health}:
 * <ul>
 *   <li>{@code GET /} and {@code GET /status}: the page ({@code status.html}, one file with its CSS and script);</li>
 *   <li>{@code GET /status.json}: a {@link DaemonStatus}, which the page polls every 2 s;</li>
 *   <li>{@code GET /binlog.json}: the {@link BinlogListing} of {@code binlog.dir}, for {@code binlog --url}.
 *       Rotated files are read once and remembered (they no longer change); the file being written is read again
 *       at every call.</li>
 * </ul>
 * Only where the runtime runs ({@code cdc.runtime.enabled}); {@link StatusConfiguration} keeps its history.
 */
@RestController
@ConditionalOnProperty(name = "cdc.runtime.enabled", havingValue = "true", matchIfMissing = true)
public class StatusController {

    private final TributaryRuntime runtime;
    private final TributaryMetrics metrics;
    private final ThroughputHistory history;
    private final int sampleSeconds;
    private final String page;
    private final Map<String, BinlogListing.FileSummary> closedFiles = new ConcurrentHashMap<>();

    StatusController(TributaryRuntime runtime, TributaryMetrics metrics, ThroughputHistory history) {
        this.runtime = runtime;
        this.metrics = metrics;
        this.history = history;
        this.sampleSeconds = StatusConfiguration.SAMPLE_SECONDS;
        this.page = page();
    }

    private static String page() {
        try (InputStream in = StatusController.class.getResourceAsStream("status.html")) {
            if (in == null) {
                throw new IllegalStateException("status.html is missing from the daemon's resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @GetMapping({"/", "/status"})
    public ResponseEntity<String> statusPage() {
        return ResponseEntity.ok().contentType(new MediaType(MediaType.TEXT_HTML, StandardCharsets.UTF_8))
                .cacheControl(CacheControl.noCache()).body(page);
    }

    @GetMapping(value = "/status.json", produces = MediaType.APPLICATION_JSON_VALUE)
    public DaemonStatus status() {
        return StatusSnapshot.of(runtime, metrics, history, sampleSeconds);
    }

    /** One listing at a time: two people asking at once wait for one read of the files instead of two. */
    @GetMapping(value = "/binlog.json", produces = MediaType.APPLICATION_JSON_VALUE)
    public synchronized ResponseEntity<?> binlog() {
        try {
            return ResponseEntity.ok(BinlogListing.read(runtime.config().binlog().dir(), closedFiles));
        } catch (IOException | RuntimeException e) {
            return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).contentType(MediaType.APPLICATION_JSON)
                    .body(Map.of("status", 500, "error", "cannot list the global binlog: " + e.getMessage()));
        }
    }
}
