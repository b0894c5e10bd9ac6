/**
 * The daemon's one memory budget: every in-memory limit of the data path (transaction buffer, merge ring,
 * tail cache, reader read-ahead) handed out from the max heap and the configuration in one place.
 */
package io.tributary.storage.memory;
