"""Policies for cya-sim: ``random``, ``greedy`` and the agent interface."""

from agents.base import Agent
from agents.greedy import GreedyAgent
from agents.random_agent import RandomAgent
from agents.registry import REGISTRY, agent_names, make_agent

__all__ = ["REGISTRY", "Agent", "GreedyAgent", "RandomAgent", "agent_names", "make_agent"]
