package io.tributary.daemon.config;

import java.util.List;

/**
 * What a shard must meet outside the configuration file (its binlog settings, the account's privileges), checked
 * while the configuration is read so that one refused start lists the configuration's problems and every shard's
 * together. The preflight package provides it; {@code cdc.preflight.enabled=false} leaves it out.
 */
@FunctionalInterface
public interface ShardCheck {

    /** The problems of {@code shard}, each a whole sentence naming the shard; empty when it is ready. */
    List<String> problems(ShardConfig shard);
}
