package io.tributary.daemon.runtime;

import io.micrometer.core.instrument.MeterRegistry;
import io.tributary.core.naming.LogicalNames;
import io.tributary.daemon.admin.LiveConfig;
import io.tributary.daemon.config.TributaryConfig;
import io.tributary.daemon.dump.DumpServerConfig;
import io.tributary.daemon.dump.DumpUser;
import java.time.Clock;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

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
    TributaryRuntime tributaryRuntime(TributaryConfig config, LiveConfig live, TributaryMetrics metrics, Environment env) {
        DumpServerConfig dump = DumpServerConfig.defaults(config.binlog().flavor(), config.binlog().serverId(),
                List.of(DumpUser.withPassword(env.getProperty("dump.users[0].name", "tributary"),
                        env.getProperty("dump.users[0].password", "tributary-pass")))).withPort(config.dumpPort());
        return new TributaryRuntime(config, live.persist(), dump, LogicalNames.defaults(), d -> d, metrics,
                Clock.systemUTC());
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
    HealthIndicator diskHealthIndicator(TributaryRuntime runtime, LiveConfig live) {
        return new RuntimeHealth.Disk(runtime, live);
    }
}
