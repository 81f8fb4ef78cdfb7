import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MonitorStack } from '../lib/monitor-stack.ts';

const app = new App();
new MonitorStack(app, 'Shieldwatch');
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
