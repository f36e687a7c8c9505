/**
 * Test support shared by every module: seeded, replayable property runs and deadline-bounded
 * waits. Used only in test scope; nothing in production code depends on it.
 */
package dev.ration.testkit;
