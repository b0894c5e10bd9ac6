/**
 * Step 5 of the data path: {@link io.tributary.storage.merge.MergeStage} runs the assemblers, the sorter and
 * {@link io.tributary.storage.merge.TransactionMerger}, which turns the sorter's emissions into global
 * transactions (XA branches stitched, rolled-back branches dropped) for the global binlog writer.
 */
package io.tributary.storage.merge;
