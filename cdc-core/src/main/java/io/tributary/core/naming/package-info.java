/**
 * Logical naming: physical shard tables ({@code shop_03.orders_0007}) become logical tables
 * ({@code shop.orders}) by configured rules ({@link io.tributary.core.naming.LogicalNames}); table maps and
 * rows events get one global table id per logical table and column layout
 * ({@link io.tributary.core.naming.GlobalTableRegistry}, differing layouts reported, not merged); the same
 * physical DDL from several shards becomes one logical statement ({@link io.tributary.core.naming.DdlDeduplicator}).
 */
package io.tributary.core.naming;
