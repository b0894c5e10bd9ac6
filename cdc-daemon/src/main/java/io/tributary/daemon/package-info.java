/**
 * The Spring Boot application: configuration, wiring, the dump server, the admin endpoints,
 * metrics and health. Not built yet: it arrives with the daemon issue (see README, "Status").
 */
package io.tributary.daemon;
