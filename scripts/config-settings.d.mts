// Types of config-settings.mjs for the TypeScript tests that import it.
export declare const KIT_CONFIG_FILES: readonly string[];
export declare const PROCESS_CONFIG_PATTERNS: readonly string[];
export declare function processConfigFiles(root: string): string[];
export declare function configFiles(root: string): string[];
export declare function settingNamesIn(source: string): Set<string>;
export declare function settingNames(root: string): Map<string, string[]>;
