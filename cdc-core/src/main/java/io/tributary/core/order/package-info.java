/**
 * The global order: the sorter and merger that turn many shard streams into one ordered stream of whole
 * transactions, and the contract by which that stream is handed to the global binlog writer
 * ({@link io.tributary.core.order.GlobalTransaction}).
 */
package io.tributary.core.order;
