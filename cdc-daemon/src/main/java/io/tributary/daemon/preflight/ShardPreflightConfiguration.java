package io.tributary.daemon.preflight;

import io.tributary.daemon.config.ShardCheck;
import io.tributary.daemon.config.ShardConfig;
import io.tributary.daemon.config.TributaryConfig;
import java.util.List;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Runs {@link ShardPreflight} on every configured shard at startup, as the configuration is read (a
 * {@link ShardCheck}): the daemon refuses to start, listing every problem of the configuration and of every shard
 * at once, when one is not ready. {@code cdc.preflight.enabled=false} skips it.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnProperty(name = "cdc.preflight.enabled", havingValue = "true", matchIfMissing = true)
public class ShardPreflightConfiguration {

    /** Marker bean: its existence means every shard passed. */
    public record VerifiedShards(List<ShardConfig> shards) { }

    @Bean
    ShardCheck shardPreflight() {
        return ShardPreflight::check;
    }

    /** The configuration is only built once every shard passed {@link #shardPreflight}. */
    @Bean
    VerifiedShards verifiedShards(TributaryConfig config) {
        return new VerifiedShards(config.shards());
    }
}
