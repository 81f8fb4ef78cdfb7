import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ContextError } from '../lib/context.ts';
import { MonitorStack } from '../lib/monitor-stack.ts';

const app = new App();
try {
  new MonitorStack(app, 'Shieldwatch');
} catch (error) {
  // Bad context is the user's to fix: the message names each key; a stack trace would only bury it.
  if (!(error instanceof ContextError)) throw error;
  console.error(error.message);
  process.exit(1);
}
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
