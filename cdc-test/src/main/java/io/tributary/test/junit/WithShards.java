package io.tributary.test.junit;

import io.tributary.test.shard.ShardFlavor;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Gives a test class real shard servers, started once before its first test and stopped after its last
 * (also when tests fail). Test methods and constructors receive them as parameters of type
 * {@link io.tributary.test.shard.ShardCluster} or {@code List<ShardInfo>}:
 * <pre>{@code
 * @WithShards(count = 2)
 * class MyIT {
 *     @Test void writes(ShardCluster shards) { ... shards.info(0).jdbcUrl() ... }
 * }
 * }</pre>
 * For MySQL flavors without a Docker engine the class's tests are reported skipped, with the reason.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(ShardsExtension.class)
public @interface WithShards {

    /** Number of shards, 1 to 8. */
    int count() default 2;

    /** Server kind. */
    ShardFlavor flavor() default ShardFlavor.MARIADB_10_11;

    /** Extra server options for every shard, e.g. {@code "--max-binlog-size=4096"}. */
    String[] serverOptions() default {};
}
