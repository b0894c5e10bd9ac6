/**
 * The contract between the merge and the global binlog writer: a whole global transaction
 * ({@link io.tributary.core.transaction.GlobalTransaction}), its events ({@link io.tributary.core.transaction.GlobalEvent})
 * and the DDL memory stored with it ({@link io.tributary.core.transaction.DdlHistory}).
 */
package io.tributary.core.transaction;
