/**
 * The configuration layer every module declares its keys with: {@link io.tributary.core.config.ConfigKey} (name,
 * type, default, parser, validator, doc text, live-editable), the value syntaxes shared by all keys
 * ({@link io.tributary.core.config.ByteSize}, {@link io.tributary.core.config.DurationText}), and the one
 * refusal, {@link io.tributary.core.config.ConfigurationException}, which lists every
 * {@link io.tributary.core.config.ConfigProblem} of a snapshot at once. No Spring: the daemon binds these
 * declarations to its {@code Environment}; cdc-storage declares its keys next to their owners.
 */
package io.tributary.core.config;
