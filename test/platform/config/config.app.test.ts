import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, describeConfig, resolveConfig } from '../../../src/platform/config/config.js';
import { makeTempDir } from '../../helpers/paths.js';

describe('configuration', () => {
  const temps: Array<() => void> = [];
  afterEach(() => temps.splice(0).forEach((cleanup) => cleanup()));

  function dirWithConfig(values: Record<string, unknown>): string {
    const { dir, cleanup } = makeTempDir();
    temps.push(cleanup);
    writeFileSync(join(dir, 'config.json'), JSON.stringify(values));
    return dir;
  }

  it('takes flags over environment over the config file over defaults, and says where each came from', () => {
    const dataDir = dirWithConfig({ port: 9001, host: '0.0.0.0', logLevel: 'debug' });
    const config = resolveConfig({ flags: { dataDir, port: '9003' }, env: { NODECTL_HOST: '127.0.0.2' } });
    expect(config.settings.port).toBe(9003);
    expect(config.sources.port).toBe('flag');
    expect(config.settings.host).toBe('127.0.0.2');
    expect(config.sources.host).toBe('env');
    expect(config.settings.logLevel).toBe('debug');
    expect(config.sources.logLevel).toBe('file');
    expect(config.settings.publishTarget).toBe('fs');
    expect(config.sources.publishTarget).toBe('default');
    expect(config.file).toBe(join(dataDir, 'config.json'));
  });

  it('rejects a bad value naming the setting, its origin and what is accepted', () => {
    expect(() => resolveConfig({ env: { NODECTL_PUBLISH_TARGET: 'ftp' } })).toThrowError(ConfigError);
    expect(() => resolveConfig({ env: { NODECTL_PUBLISH_TARGET: 'ftp' } })).toThrowError(
      /publishTarget \(from environment variable NODECTL_PUBLISH_TARGET\).*"fs"/,
    );
    expect(() => resolveConfig({ flags: { port: '99999' } })).toThrowError(/port \(from flag --port\)/);
  });

  it('rejects unknown keys in the config file and lists the known ones', () => {
    const dataDir = dirWithConfig({ prot: 1 });
    expect(() => resolveConfig({ flags: { dataDir } })).toThrowError(/Known settings: dataDir, host, port/);
  });

  it('masks secrets when describing the settings', () => {
    const config = resolveConfig({ env: { NODECTL_S3_SECRET_ACCESS_KEY: 'super-secret-value' } });
    const row = describeConfig(config).find((r) => r.name === 's3SecretAccessKey');
    expect(row?.value).toBe('********');
    expect(JSON.stringify(describeConfig(config))).not.toContain('super-secret-value');
  });

  describe('controlStore', () => {
    it("is the data directory's control.sqlite by default, and that file given by path", () => {
      const { dir, cleanup } = makeTempDir();
      temps.push(cleanup);
      const sqlite = join(dir, 'control.sqlite');
      expect(resolveConfig({ flags: { dataDir: dir }, env: {} }).settings.controlStore).toBe(sqlite);
      const named = resolveConfig({ flags: { dataDir: dir }, env: { NODECTL_CONTROL_STORE: sqlite } });
      expect(named.settings.controlStore).toBe(sqlite);
      expect(named.sources.controlStore).toBe('env');
    });

    it('takes a postgres:// or postgresql:// URL, from the environment or the config file', () => {
      const url = 'postgres://nodectl:pw@db.internal:5432/nodectl';
      expect(resolveConfig({ env: { NODECTL_CONTROL_STORE: url } }).settings.controlStore).toBe(url);
      const dir = dirWithConfig({ controlStore: 'postgresql://db.internal/nodectl' });
      expect(resolveConfig({ flags: { dataDir: dir }, env: {} }).settings.controlStore).toBe(
        'postgresql://db.internal/nodectl',
      );
    });

    it('refuses another scheme, or a SQLite file elsewhere, saying what to give instead', () => {
      expect(() => resolveConfig({ env: { NODECTL_CONTROL_STORE: 'mysql://db/nodectl' } })).toThrowError(
        /Invalid value for controlStore \(from environment variable NODECTL_CONTROL_STORE\): "mysql:\/\/db\/nodectl"\. must be a postgres:\/\/ or postgresql:\/\/ URL/,
      );
      const dir = dirWithConfig({ controlStore: '/elsewhere/control.sqlite' });
      expect(() => resolveConfig({ flags: { dataDir: dir }, env: {} })).toThrowError(ConfigError);
      expect(() => resolveConfig({ flags: { dataDir: dir }, env: {} })).toThrowError(
        /from config file .*config\.json.*control\.sqlite in the data directory .*set dataDir.*postgres:\/\/ URL/,
      );
    });

    it('shows a URL with its password masked', () => {
      const config = resolveConfig({
        env: { NODECTL_CONTROL_STORE: 'postgres://nodectl:hunter2@db.internal/nodectl' },
      });
      const row = describeConfig(config).find((r) => r.name === 'controlStore');
      expect(row?.value).toBe('postgres://nodectl:********@db.internal/nodectl');
      expect(JSON.stringify(describeConfig(config))).not.toContain('hunter2');
    });
  });

  it('freezes the resolved settings', () => {
    const config = resolveConfig({});
    expect(Object.isFrozen(config.settings)).toBe(true);
  });
});
