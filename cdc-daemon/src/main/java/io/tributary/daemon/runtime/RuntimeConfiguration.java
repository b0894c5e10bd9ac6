package io.tributary.daemon.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.daemon.admin.LiveConfig;
import io.tributary.daemon.config.TributaryConfig;
import java.time.Clock;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs {@link TributaryRuntime} as the daemon's lifecycle: it starts once the context (configuration,
 * preflight, admin endpoints, metrics registry) is ready and stops first at shutdown (graceful: readers,
 * drain, durable checkpoint, subscribers). {@code cdc.runtime.enabled=false} leaves it out: the daemon then
 * only validates its configuration and serves the admin endpoints (a dry run).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "cdc.runtime.enabled", havingValue = "true", matchIfMissing = true)
public class RuntimeConfiguration {

    @Bean
    TributaryMetrics tributaryMetrics(MeterRegistry registry, TributaryConfig config) {
        return new TributaryMetrics(registry, config.shards());
    }

    @Bean
    TributaryRuntime tributaryRuntime(TributaryConfig config, LiveConfig live, TributaryMetrics metrics) {
        return new TributaryRuntime(config, live.persist(), live, metrics, Clock.systemUTC());
    }

    @Bean
    SmartLifecycle tributaryLifecycle(TributaryRuntime runtime, TributaryMetrics metrics, TributaryConfig config) {
        return new SmartLifecycle() {
            private volatile boolean running;
            private StatusLine status;

            @Override
            public void start() {
                runtime.start();
                metrics.bind(runtime);
                status = new StatusLine(metrics, config.shards(), config.statusInterval());
                status.start();
                running = true;
            }

            @Override
            public void stop() {
                running = false;
                if (status != null) {
                    status.close();
                }
                runtime.close();
            }

            @Override
            public boolean isRunning() {
                return running;
            }
        };
    }

    @Bean
    HealthIndicator shardsHealthIndicator(TributaryRuntime runtime) {
        return new RuntimeHealth.Shards(runtime);
    }

    @Bean
    HealthIndicator globalBinlogHealthIndicator(TributaryRuntime runtime) {
        return new RuntimeHealth.GlobalBinlog(runtime);
    }

    @Bean
    HealthIndicator catchUpHealthIndicator(TributaryRuntime runtime) {
        return new RuntimeHealth.CatchUp(runtime);
    }

    @Bean
    HealthIndicator diskHealthIndicator(TributaryRuntime runtime, LiveConfig live) {
        return new RuntimeHealth.Disk(runtime, live);
    }
}
