package io.tributary.test.junit;

import io.tributary.test.shard.ShardCluster;
import io.tributary.test.shard.ShardClusterConfig;
import io.tributary.test.shard.ShardFlavor;
import io.tributary.test.shard.ShardInfo;
import io.tributary.test.shard.ShardsUnavailableException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;
import org.opentest4j.TestAbortedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the shards a {@link WithShards} class asks for and injects them. The cluster is kept in the
 * class-level extension store, which JUnit closes after the class whatever its outcome, so the servers
 * are stopped also when a test fails or throws.
 *
 * <p>A flavor that cannot run here (MySQL without a Docker engine) aborts every test of the class, so
 * each is reported as skipped with the reason (a class-level abort would vanish from the counts).
 */
public final class ShardsExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

    private static final Logger log = LoggerFactory.getLogger(ShardsExtension.class);

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(ShardsExtension.class);
    private static final String CLUSTER = "cluster";
    private static final String UNAVAILABLE = "unavailable";

    @Override
    public void beforeAll(ExtensionContext context) {
        WithShards spec = AnnotationSupport.findAnnotation(context.getRequiredTestClass(), WithShards.class)
                .orElseThrow(() -> new IllegalStateException("ShardsExtension needs @WithShards on "
                        + context.getRequiredTestClass().getName()));
        ShardFlavor flavor = spec.flavor();
        ShardClusterConfig config = ShardClusterConfig.defaults().withCount(spec.count()).withFlavor(flavor)
                .withServerOptions(List.of(spec.serverOptions()));
        try {
            context.getStore(NAMESPACE).put(CLUSTER, ShardCluster.start(config));
        } catch (ShardsUnavailableException e) {
            String reason = flavor.description() + " shards unavailable: " + e.getMessage();
            log.warn("SKIPPING {}: {}", context.getRequiredTestClass().getSimpleName(), reason);
            context.getStore(NAMESPACE).put(UNAVAILABLE, reason);
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        String reason = context.getStore(NAMESPACE).get(UNAVAILABLE, String.class);
        if (reason != null) {
            throw new TestAbortedException(reason);
        }
    }


    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext extension) {
        Class<?> type = parameter.getParameter().getType();
        return type == ShardCluster.class || isListOfShardInfo(parameter.getParameter().getParameterizedType());
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext extension) {
        ShardCluster cluster = extension.getStore(NAMESPACE).get(CLUSTER, ShardCluster.class);
        if (cluster == null) {
            throw new ParameterResolutionException("no shards were started for " + extension.getDisplayName());
        }
        return parameter.getParameter().getType() == ShardCluster.class ? cluster : cluster.infos();
    }

    private static boolean isListOfShardInfo(Type type) {
        return type instanceof ParameterizedType p && p.getRawType() == List.class
                && p.getActualTypeArguments()[0] == ShardInfo.class;
    }
}
