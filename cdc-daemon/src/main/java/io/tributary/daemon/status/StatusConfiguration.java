package io.tributary.daemon.status;

import io.tributary.daemon.runtime.TributaryMetrics;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Wires the status page's throughput history sampled once a second by a thread named
 * {@code status-sampler} ({@value #HISTORY_SECONDS} samples: the page's sparklines span five minutes, with history
 * from before the page was opened). Only where the runtime runs ({@code cdc.runtime.enabled}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "cdc.runtime.enabled", havingValue = "true", matchIfMissing = true)
public class StatusConfiguration {

    static final int SAMPLE_SECONDS = 1;
    static final int HISTORY_SECONDS = 300;

    private static final Logger log = LoggerFactory.getLogger(StatusConfiguration.class);

    @Bean
    ThroughputHistory throughputHistory() {
        return new ThroughputHistory(HISTORY_SECONDS / SAMPLE_SECONDS);
    }

    @Bean
    SmartLifecycle throughputSampler(TributaryMetrics metrics, ThroughputHistory history) {
        return new SmartLifecycle() {
            private ScheduledExecutorService scheduler;

            @Override
            public synchronized void start() {
                scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "status-sampler");
                    t.setDaemon(true);
                    return t;
                });
                scheduler.scheduleAtFixedRate(() -> {
                    try {
                        history.record(metrics.counters(), System.nanoTime(), System.currentTimeMillis());
                    } catch (RuntimeException e) {
                        log.warn("throughput sample for the status page failed: {}", e.toString());
                    }
                }, 0, SAMPLE_SECONDS, TimeUnit.SECONDS);
            }

            @Override
            public synchronized void stop() {
                if (scheduler != null) {
                    scheduler.shutdownNow();
                    scheduler = null;
                }
            }

            @Override
            public synchronized boolean isRunning() {
                return scheduler != null;
            }
        };
    }
}
