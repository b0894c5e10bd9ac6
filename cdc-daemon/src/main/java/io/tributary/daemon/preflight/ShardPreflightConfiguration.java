package io.tributary.daemon.preflight;

import io.tributary.core.config.ConfigProblem;
import io.tributary.core.config.ConfigurationException;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.TributaryConfig;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs {@link ShardPreflight} on every configured shard at startup and refuses to start, listing every
 * problem of every shard, when one is not ready. {@code cdc.preflight.enabled=false} skips it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "cdc.preflight.enabled", havingValue = "true", matchIfMissing = true)
public class ShardPreflightConfiguration {

    /** Marker bean: its existence means every shard passed. */
    public record VerifiedShards(List<ShardConfig> shards) { }

    @Bean
    VerifiedShards verifiedShards(TributaryConfig config) {
        List<ConfigProblem> problems = new ArrayList<>();
        for (ShardConfig shard : config.shards()) {
            for (String unmet : ShardPreflight.check(shard)) {
                problems.add(ConfigProblem.unmet("cdc.shards[" + shard.index() + "]", unmet));
            }
        }
        if (!problems.isEmpty()) {
            throw new ConfigurationException(problems);
        }
        return new VerifiedShards(config.shards());
    }
}
